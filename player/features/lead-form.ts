import type { Feature } from "../types.ts";
import { holdWhile, leadCapture } from "./lib/lead-capture.ts";
import { onReach } from "./lib/style.ts";

/**
 * lead_form_options {time_s, fields, title, button_text, skippable, skip_text}:
 * at time_s playback pauses and the form shows inside the player; after a
 * submit (or a skip) playback resumes. A viewer who already answered is not
 * asked (lib/lead-capture.ts).
 */
export const leadForm: Feature = {
  name: "lead_form",
  setup(player) {
    const o = player.settings.lead_form_options || {};
    const capture = leadCapture(player);
    return onReach(player, [
      {
        time: o.time_s ?? 0,
        run() {
          capture.answered.then((answered) => {
            if (answered) return;
            const result = capture.ask({
              title: o.title,
              fields: o.fields || ["email"],
              button: o.button_text,
              skip: o.skippable === false ? null : o.skip_text || "Skip",
              form: "lead_form",
            });
            holdWhile(player, result);
            result.then((r) => r !== "closed" && player.play());
          });
        },
      },
    ]);
  },
};
