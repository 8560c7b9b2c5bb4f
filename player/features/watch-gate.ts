import type { Feature } from "../types.ts";
import { leadCapture } from "./lib/lead-capture.ts";
import { held, hold, on, own } from "./lib/style.ts";

/**
 * watch_gate_options {gate_time_s, message}: playback cannot pass gate_time_s
 * (a seek past it is held there too, and `seekLimit` tells the controls) until
 * the viewer answers the lead form shown on the gate with the message, or the
 * page calls `unlock()`. The form's fields and title are the lead form's.
 */
export const watchGate: Feature = {
  name: "watch_gate",
  setup(player) {
    const gate = Math.max(0, player.settings.watch_gate_options?.gate_time_s ?? 0);
    const message = player.settings.watch_gate_options?.message;
    const lead = player.settings.lead_form_options || {};
    const capture = leadCapture(player);
    const video = player.video;
    let open = false;
    let asking = false;
    player.seekLimit = gate;
    const unlock = (resume: boolean) => {
      if (open) return;
      open = true;
      player.seekLimit = Number.POSITIVE_INFINITY;
      capture.close();
      // A form still open resumes when it goes (below), unless another hold (a quiz) is left.
      if (resume && !held(player) && video.paused && video.currentTime >= gate - 0.5) player.play();
    };
    capture.answered.then((answered) => answered && unlock(false));
    const guard = () => {
      if (open || !own(player)) return;
      if (capture.done) return unlock(false);
      if (video.currentTime > gate + 0.05) video.currentTime = gate;
      if (asking || video.currentTime < gate - 0.05 || (video.paused && !video.seeking)) return;
      asking = true;
      const result = capture.ask({
        title: lead.title || "Enter your email to keep watching",
        message,
        fields: lead.fields || ["email"],
        button: lead.button_text,
        form: "watch_gate",
      });
      const release = hold(player);
      result.then((r) => {
        asking = false;
        // Answered, or closed by unlock(): playback goes on.
        release(r !== "skipped");
        if (r === "submitted") unlock(true);
      });
    };
    const offs = [on(video, "timeupdate seeking playing", guard), player.on("unlock", () => unlock(true))];
    return () => {
      offs.forEach((f) => f());
      player.seekLimit = Number.POSITIVE_INFINITY;
    };
  },
};
