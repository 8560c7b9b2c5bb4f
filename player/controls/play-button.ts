import type { PlayerApi } from "../types.ts";
import { listen } from "../dom.ts";
import { all, button, shown, togglePlay, type Teardown } from "./control.ts";

/**
 * The play buttons: the big one over the poster (playback_options.show_play_button)
 * and play/pause in the row (controls_options.play), named for what it does next
 * and `fl-on` while playing. The root follows the same state (`fl-playing`) and,
 * from the first play intent, `fl-active`; in plain mode that intent hands over
 * to the browser's own controls.
 */
export function playButton(player: PlayerApi, big: HTMLButtonElement): Teardown {
  const { root, video } = player;
  if (player.settings.playback_options?.show_play_button === false) big.hidden = true;
  big.onclick = () => player.play();
  const b = shown(player, "play") ? button(player, "fl-play", "Play") : null;
  if (b) b.onclick = () => togglePlay(player);
  const state = () => {
    const playing = !video.paused && !video.ended;
    root.classList.toggle("fl-playing", playing);
    b?.setAttribute("aria-label", playing ? "Pause" : "Play");
    b?.classList.toggle("fl-on", playing);
  };
  state();
  return all([
    listen(video, "play", state),
    listen(video, "pause", state),
    listen(video, "ended", state),
    player.on("intent", () => {
      root.classList.add("fl-active");
      if (player.plain) video.controls = true;
    }),
    player.on("source", () => {
      root.classList.remove("fl-active");
      video.controls = false;
    }),
  ]);
}
