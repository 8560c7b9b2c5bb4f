import type { PlayerApi } from "../types.ts";
import { listen } from "../dom.ts";
import { all, seekTo, togglePlay, type Teardown } from "./control.ts";

/**
 * On the picture itself: a click toggles playback, as viewers expect (not in
 * plain mode, where the browser's controls own it), and on a touch screen a
 * double tap on the left third seeks back 10 s, on the right third forward.
 */
export function videoGestures(player: PlayerApi): Teardown {
  const video = player.video;
  let tapAt = 0;
  return all([
    listen(video, "pointerup", (ev) => {
      const e = ev as PointerEvent;
      if (e.pointerType !== "touch") return;
      if (e.timeStamp - tapAt > 300) {
        tapAt = e.timeStamp;
        return;
      }
      tapAt = 0;
      const r = video.getBoundingClientRect();
      const x = (e.clientX - r.left) / r.width;
      if (x < 1 / 3 || x > 2 / 3) seekTo(player, video.currentTime + (x < 1 / 3 ? -10 : 10));
    }),
    listen(video, "click", () => !player.plain && togglePlay(player)),
  ]);
}
