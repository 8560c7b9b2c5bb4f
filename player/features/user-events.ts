import type { Feature } from "../types.ts";
import { onReach } from "./lib/style.ts";

/**
 * user_events_options.events [{time_s, name, value}]: when playback first
 * reaches time_s, the custom event `name` is sent through the page's
 * `Frameline.track()` (the browser path, declared names only: a deploy checks
 * them) with this video's code, so it is recorded against the viewer's session
 * and this video.
 */
export const userEvents: Feature = {
  name: "user_events",
  setup(player) {
    const events = (player.settings.user_events_options?.events || []).filter((e) => e?.name && e.time_s >= 0);
    return onReach(
      player,
      events.map((e) => ({
        time: e.time_s,
        run: () => window.Frameline?.track(e.name, { video_code: player.config.video.code, ...(typeof e.value === "number" ? { value: e.value } : {}) }),
      })),
    );
  },
};
