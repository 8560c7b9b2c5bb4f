import type { PlayerApi } from "../types.ts";
import { h, listen } from "../dom.ts";

/**
 * What every control shares. A control is a function of the facade that
 * renders its part and registers its listeners, and returns its teardown
 * (the controller calls it on destroy), or nothing when it holds none.
 */
export type Teardown = () => void;

/** Sets an attribute from a number or boolean too (ARIA states are text). */
export const attr = (el: Element, name: string, value: string | number | boolean) => el.setAttribute(name, String(value));

/** One teardown for several. */
export function all(offs: Teardown[]): Teardown {
  return () => offs.forEach((off) => off());
}

/** A named button in the control row, before the mute and fullscreen buttons when they exist (or before `before`). */
export function button(player: PlayerApi, cls: string, label: string, before?: Element | null): HTMLButtonElement {
  const controls = player.controls!;
  const b = h("button", "fl-btn " + cls);
  b.type = "button";
  attr(b, "aria-label", label);
  controls.insertBefore(b, before === undefined ? controls.querySelector(".fl-mute,.fl-fs") : before);
  return b;
}

/** Runs `update` now, and whenever the position, the duration or the source changes. */
export function onTime(player: PlayerApi, update: () => void): Teardown {
  update();
  return all([listen(player.video, "timeupdate", update), listen(player.video, "durationchange", update), player.on("source", update)]);
}

/** Whether the row shows the control `key` of controls_options (on unless turned off; none without a row). */
export const shown = (player: PlayerApi, key: "play" | "time" | "volume" | "fullscreen"): boolean =>
  !!player.controls && player.settings.controls_options?.[key] !== false;

/** Plays when paused or ended (a play intent, so the stream loads if needed), else pauses. */
export function togglePlay(player: PlayerApi): void {
  const v = player.video;
  if (v.paused || v.ended) player.play();
  else v.pause();
}

/** The viewer may not seek: seeking is off, or the cloak feature hides the timeline. */
export function cloaked(player: PlayerApi): boolean {
  return player.root.classList.contains("fl-cloaked") || player.settings.playback_options?.allow_seek === false;
}

/** Seeks to `to` seconds, within the video (and the facade's limit), unless seeking is off or cloaked. */
export function seekTo(player: PlayerApi, to: number): void {
  const d = player.video.duration;
  if (cloaked(player) || !(d > 0)) return;
  player.seek(Math.max(0, Math.min(to, d)));
}
