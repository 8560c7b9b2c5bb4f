import type { PlayerApi } from "../types.ts";
import { clock, h } from "../dom.ts";
import { attr, cloaked, onTime, type Teardown } from "./control.ts";

/**
 * The progress bar: a keyboard slider (`role="slider"`, valuenow/valuemax in
 * seconds, valuetext "1:23 of 4:56"; its keys are the keyboard map's) that
 * seeks where it is clicked, unless seeking is off or cloaked.
 * progress_options.fast_start runs the bar ahead early and slower later (a
 * sales-video habit): the fill is the square root of the played share.
 */
export function progressBar(player: PlayerApi): Teardown | undefined {
  const track = player.track;
  if (!track) return;
  const video = player.video;
  const fast = player.settings.progress_options?.fast_start;
  const fill = h("div", "fl-fill", track);
  attr(track, "role", "slider");
  attr(track, "aria-label", "Seek");
  attr(track, "aria-valuemin", 0);
  track.tabIndex = 0;
  if (player.settings.playback_options?.allow_seek !== false) {
    track.onclick = (e) => {
      const d = video.duration;
      const r = track.getBoundingClientRect();
      if (!(d > 0) || !r.width || cloaked(player)) return;
      const p = Math.min(1, Math.max(0, (e.clientX - r.left) / r.width));
      player.seek((fast ? p * p : p) * d);
    };
  } else attr(track, "aria-readonly", true);
  const update = () => {
    const d = video.duration;
    const known = d > 0 && Number.isFinite(d);
    const p = known ? video.currentTime / d : 0;
    fill.style.width = (fast ? Math.sqrt(p) : p) * 100 + "%";
    attr(track, "aria-valuemax", known ? Math.round(d) : 0);
    attr(track, "aria-valuenow", Math.round(video.currentTime || 0));
    attr(track, "aria-valuetext", clock(video.currentTime) + (known ? " of " + clock(d) : ""));
  };
  return onTime(player, update);
}
