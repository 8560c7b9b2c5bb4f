import type { PlayerApi } from "../types.ts";
import { clock, h } from "../dom.ts";
import { onTime, shown, type Teardown } from "./control.ts";

/** Elapsed time, and the duration once known: "1:23 / 4:56" (controls_options.time). */
export function timeDisplay(player: PlayerApi): Teardown | undefined {
  if (!shown(player, "time")) return;
  const video = player.video;
  const time = h("span", "fl-time", player.controls, "0:00");
  const update = () => {
    const d = video.duration;
    time.textContent = clock(video.currentTime) + (d > 0 && Number.isFinite(d) ? " / " + clock(d) : "");
  };
  return onTime(player, update);
}
