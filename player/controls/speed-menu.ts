import type { PlayerApi } from "../types.ts";
import { listen } from "../dom.ts";
import { attr, type Teardown } from "./control.ts";
import type { Menus } from "./menus.ts";

/**
 * speed_options: the default speed applies from the start (in plain mode too),
 * and with two speeds or more a menu offers them, showing the current one
 * ("1.5x"), unless playback_options.allow_speed or controls_options.settings is off.
 */
export function speedMenu(player: PlayerApi, menus: Menus): Teardown | undefined {
  const s = player.settings;
  const video = player.video;
  const rate = s.speed_options?.default_speed;
  if (rate && rate > 0) video.defaultPlaybackRate = video.playbackRate = rate;
  const speeds = s.speed_options?.speeds || [];
  if (s.playback_options?.allow_speed === false || s.controls_options?.settings === false || speeds.length < 2) return;
  const b = menus.menu("fl-speed", "Speed", () =>
    speeds.map((r) => ({ label: r + "x", checked: r === video.playbackRate, run: () => (video.playbackRate = r) })),
  );
  if (!b) return;
  const update = () => {
    b.textContent = video.playbackRate + "x";
    attr(b, "aria-label", `Speed ${video.playbackRate}x`);
  };
  update();
  return listen(video, "ratechange", update);
}
