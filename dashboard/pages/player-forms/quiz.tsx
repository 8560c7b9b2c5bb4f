import { groupForm } from "./kit.tsx";

/** A new choice, lettered after the ones the question has. */
const nextChoice = (count: number) => ({ id: String.fromCharCode(97 + count), text: "" });

/** quiz_options.questions: at a time playback pauses and asks; a choice may be the right one, may jump to a time or send the viewer on to another video. */
export const quizForm = groupForm("quiz_options", "Quiz questions", (f) => (
  <>
    {f.check("enabled", "Ask these questions")}
    {f.list("questions", "question", { id: "", time_s: 0, question: "", required: false, choices: [nextChoice(0)] }, (q, _, i) => (
      <>
        <div class="row item">
          {q.text("id", `Question ${i + 1} id`, { empty: "" })}
          {q.num("time_s", "Asked at (s)")}
        </div>
        {q.text("question", "Question", { empty: "" })}
        {q.check("required", "Required (no skip button)")}
        {q.list(
          "choices",
          "choice",
          nextChoice,
          (c, _, j) => (
            <>
              <div class="row item">
                {c.text("id", `Choice ${j + 1} id`, { empty: "" })}
                {c.text("text", "Text", { empty: "" })}
                {c.num("jump_to_s", "Jump to (s)", { empty: null })}
              </div>
              {c.video("next_video_code", "Then play video")}
              {c.check("correct", "Right answer")}
            </>
          ),
          `question ${i + 1}`,
        )}
      </>
    ))}
    <p class="hint">
      An answer is recorded (quiz_answered, the quiz.answered webhook). In a course, answering every question right completes the lesson. A choice with a video
      to play next swaps the player to it in place (its own settings, the same viewer session); the Funnel paths tab of the video shows where viewers went.
    </p>
  </>
));
