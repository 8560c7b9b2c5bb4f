import type { Feature } from "../types.ts";
import { leadCapture } from "./lib/lead-capture.ts";
import { held, hold, on, onReach, own, pausedByPlayer } from "./lib/style.ts";

/**
 * lead_form_options {trigger, time_s, fields, title, button_text, skippable, skip_text}:
 * the form shows inside the player, holding playback until it is answered or skipped,
 * at the moment the seller chose (`trigger`):
 *
 * - `time` (the default): when playback reaches time_s; then playback goes on.
 * - `pause`: at the first pause the viewer asks for after time_s (not one the player
 *   makes for a gate, a quiz, a pause action, a hidden tab or the end); playback stays
 *   paused afterwards, as the viewer wanted.
 * - `exit`: when, after time_s, the viewer's pointer leaves the page or the tab is
 *   hidden; then playback goes on if it was playing.
 *
 * A viewer who already answered is not asked (lib/lead-capture.ts), nor asked twice.
 */
export const leadForm: Feature = {
  name: "lead_form",
  setup(player) {
    const o = player.settings.lead_form_options || {};
    const capture = leadCapture(player);
    const video = player.video;
    const at = o.time_s ?? 0;
    let asked = false;
    let started = false;
    const ask = (resume: boolean) => {
      if (asked) return;
      asked = true;
      capture.answered.then((answered) => {
        if (answered) return;
        const release = hold(player);
        capture
          .ask({
            title: o.title,
            fields: o.fields || ["email"],
            button: o.button_text,
            skip: o.skippable === false ? null : o.skip_text || "Skip",
            form: "lead_form",
          })
          .then((r) => release(resume && r !== "closed"));
      });
    };
    if (!o.trigger || o.trigger === "time") return onReach(player, [{ time: at, run: () => ask(true) }]);
    // Past time_s in the container video, once playback has started.
    const due = () => started && own(player) && video.currentTime >= at;
    const offs = [player.on("intent", () => (started = true))];
    if (o.trigger === "pause")
      offs.push(
        on(video, "pause", () => {
          // Read first: it forgets the player's own pause.
          const mine = pausedByPlayer(player);
          if (!mine && !video.ended && !held(player) && due()) ask(false);
        }),
      );
    else
      offs.push(
        on(document, "mouseout", (e) => !(e as MouseEvent).relatedTarget && due() && ask(!video.paused)),
        on(document, "visibilitychange", () => document.hidden && due() && ask(!video.paused)),
      );
    return () => offs.forEach((f) => f());
  },
};
