import { Fragment } from "preact";
import { fields, type Group, type GroupForm, idOf, List, Num, Text } from "./kit.tsx";

const G = "quiz_options";

/** quiz_options.questions: at a time playback pauses and asks; a choice may be the right one and may jump to a time. */
export const quizForm: GroupForm = {
  group: G,
  legend: "Quiz questions",
  Form: (p) => (
    <>
      {fields(G, p).check("enabled", "Ask these questions")}
      <List
        group={G}
        list="questions"
        p={p}
        noun="question"
        blank={{ id: "", time_s: 0, question: "", required: false, choices: [{ id: "a", text: "" }] }}
        row={(q, at, set, i) => {
          const choices: Group[] = q.choices ?? [];
          const setChoice = (j: number, key: string, value: unknown) =>
            set(
              "choices",
              choices.map((c, k) => (k === j ? { ...c, [key]: value } : c)),
            );
          return (
            <>
              <div class="row item">
                <Text path={at("id")} label={`Question ${i + 1} id`} value={q.id} onValue={(v) => set("id", v ?? "")} err={p.err(at("id"))} />
                <Num path={at("time_s")} label="Asked at (s)" value={q.time_s} onValue={(v) => set("time_s", v)} err={p.err(at("time_s"))} />
              </div>
              <Text path={at("question")} label="Question" value={q.question} onValue={(v) => set("question", v ?? "")} err={p.err(at("question"))} />
              <div class="check">
                <input type="checkbox" id={idOf(at("required"))} checked={!!q.required} onChange={(e) => set("required", e.currentTarget.checked)} />
                <label for={idOf(at("required"))}>Required (no skip button)</label>
              </div>
              {choices.map((c, j) => (
                <Fragment key={j}>
                  <div class="row item">
                    <Text
                      path={at(`choices.${j}.id`)}
                      label={`Choice ${j + 1} id`}
                      value={c.id}
                      onValue={(v) => setChoice(j, "id", v ?? "")}
                      err={p.err(at(`choices.${j}.id`))}
                    />
                    <Text
                      path={at(`choices.${j}.text`)}
                      label="Text"
                      value={c.text}
                      onValue={(v) => setChoice(j, "text", v ?? "")}
                      err={p.err(at(`choices.${j}.text`))}
                    />
                    <Num
                      path={at(`choices.${j}.jump_to_s`)}
                      label="Jump to (s)"
                      value={c.jump_to_s}
                      onValue={(v) => setChoice(j, "jump_to_s", v ?? null)}
                      err={p.err(at(`choices.${j}.jump_to_s`))}
                    />
                  </div>
                  <div class="row item">
                    <div class="check">
                      <input
                        type="checkbox"
                        id={idOf(at(`choices.${j}.correct`))}
                        checked={!!c.correct}
                        onChange={(e) => setChoice(j, "correct", e.currentTarget.checked)}
                      />
                      <label for={idOf(at(`choices.${j}.correct`))}>Right answer</label>
                    </div>
                    <button
                      type="button"
                      class="link"
                      onClick={() =>
                        set(
                          "choices",
                          choices.filter((_, k) => k !== j),
                        )
                      }
                      aria-label={`Remove choice ${j + 1} of question ${i + 1}`}
                    >
                      Remove choice {j + 1}
                    </button>
                  </div>
                </Fragment>
              ))}
              <button type="button" class="secondary" onClick={() => set("choices", [...choices, { id: String.fromCharCode(97 + choices.length), text: "" }])}>
                Add choice to question {i + 1}
              </button>
            </>
          );
        }}
      />
      <p class="hint">An answer is recorded (quiz_answered, the quiz.answered webhook). In a course, answering every question right completes the lesson.</p>
    </>
  ),
};
