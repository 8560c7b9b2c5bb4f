import type { Feature } from "../types.ts";
import { held, on, pauseForPlayer } from "./lib/style.ts";

/**
 * Smart pause (playback_options.pause_when_hidden): playback pauses when the tab is
 * hidden (`visibilitychange`), so a viewer who switches away misses nothing, and with
 * resume_when_visible (the default) it goes on when the tab is back, if this pause
 * stopped it and nothing else holds it (a form, a question).
 */
export const smartPause: Feature = {
  name: "smart_pause",
  setup(player) {
    const video = player.video;
    const resume = player.settings.playback_options?.resume_when_visible !== false;
    let paused = false;
    const offs = [
      on(document, "visibilitychange", () => {
        if (document.hidden) {
          paused = !video.paused;
          pauseForPlayer(player);
        } else if (paused) {
          paused = false;
          if (resume && video.paused && !held(player)) player.play();
        }
      }),
      // The viewer (or another part) played or paused meanwhile: that stands.
      on(video, "play", () => (paused = false)),
    ];
    return () => offs.forEach((f) => f());
  },
};
