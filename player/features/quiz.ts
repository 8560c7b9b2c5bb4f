import type { Feature, QuizQuestionOption } from "../types.ts";
import { RANK_QUIZ } from "../overlay-ranks.ts";
import { el, hold, onReach, style } from "./lib/style.ts";

/**
 * quiz_options.questions [{id, time_s, question, choices: [{id, text, correct?,
 * jump_to_s?}], required}]: when playback of the container video first reaches
 * a question's time_s it pauses and asks (a dialog, an overlay that waits while a
 * form above it has the stage, announced and focused once shown). An answer sends `quiz_answered {question_id, choice_id,
 * correct}` (properties, so the events read, the exports and the
 * `quiz.answered` webhook carry them), tells the page (`quiz_answer`), then
 * jumps to the choice's jump_to_s (branching) or resumes. A choice that names
 * next_video_code sends it with the answer (the funnel step) and swaps the player
 * to that video instead (`next_video`, features/funnel.ts). A required question
 * has no skip button and holds playback until answered.
 */
export const quiz: Feature = {
  name: "quiz",
  setup(player) {
    const questions = (player.settings.quiz_options?.questions || []).filter((q) => q && Array.isArray(q.choices) && q.choices.length);
    style(
      "fl-css-quiz",
      ".fl-quiz{position:absolute;inset:0;z-index:3;display:flex;flex-direction:column;justify-content:center;gap:8px;padding:16px 15%;background:#000d;color:#fff;overflow:auto}" +
        ".fl-quiz p{margin:0}.fl-quiz-q{font-size:18px;font-weight:700}.fl-quiz button{border:0;border-radius:4px;padding:10px;font:15px var(--fl-font);background:var(--fl-main);color:var(--fl-text);cursor:pointer;text-align:left}" +
        ".fl-quiz .fl-ghost{background:none;color:#fff;text-decoration:underline;text-align:center}",
    );
    const ask = (q: QuizQuestionOption) => {
      const box = el("div", "fl-quiz", player.layer);
      box.setAttribute("role", "dialog");
      box.setAttribute("aria-modal", "true");
      box.setAttribute("aria-label", "Question");
      const title = el("p", "fl-quiz-q", box);
      title.id = `fl-quiz-${String(q.id).replace(/\W/g, "_")}`;
      box.setAttribute("aria-labelledby", title.id);
      const release = hold(player);
      let leave = () => {};
      const close = (jump?: number | null) => {
        leave();
        box.remove();
        if (typeof jump === "number" && jump >= 0) player.seek(jump);
        // Goes on unless another hold (the lead form) is left.
        release(true);
      };
      q.choices.forEach((c) => {
        const b = el("button", "fl-quiz-choice", box, c.text);
        b.type = "button";
        b.onclick = () => {
          const correct = q.choices.some((x) => x.correct) ? !!c.correct : null;
          const answer = { question_id: String(q.id), choice_id: String(c.id), correct };
          const properties: Record<string, string | boolean> = { question_id: answer.question_id, choice_id: answer.choice_id };
          if (correct !== null) properties.correct = correct;
          const next = c.next_video_code;
          // Only players built with the funnel (compiler/flags.ts) carry the swap.
          if (__FL_FEATURES__.funnel && next) {
            properties.next_video_code = next;
            player.collect("quiz_answered", { properties });
            player.emit("quiz_answer", answer);
            // This player goes away: nothing of it resumes.
            leave();
            box.remove();
            return player.emit("next_video", { code: next });
          }
          player.collect("quiz_answered", { properties });
          player.emit("quiz_answer", answer);
          close(c.jump_to_s);
        };
      });
      if (!q.required) {
        const skip = el("button", "fl-ghost fl-quiz-skip", box, "Skip");
        skip.type = "button";
        skip.onclick = () => close();
      }
      title.textContent = q.question;
      leave = player.overlay(box, RANK_QUIZ, { say: q.question, modal: true });
    };
    return onReach(
      player,
      questions.map((q) => ({ time: Math.max(0, Number(q.time_s) || 0), run: () => ask(q) })),
    );
  },
};
