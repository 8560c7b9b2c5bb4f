import type { PlayerApi } from "../types.ts";
import { button, shown } from "./control.ts";

type IosVideo = HTMLVideoElement & { webkitEnterFullscreen?: () => void };

/**
 * The player's root fullscreen (so overlays and controls stay), or leaves it;
 * iPhone Safari has no element fullscreen, only the video's own.
 */
export function toggleFullscreen(player: PlayerApi): void {
  const root = player.root;
  const video = player.video as IosVideo;
  if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
  else if ((root as Partial<HTMLElement>).requestFullscreen) root.requestFullscreen().catch(() => {});
  else video.webkitEnterFullscreen?.();
}

/** The fullscreen button (controls_options.fullscreen), where either kind of fullscreen exists. */
export function fullscreenButton(player: PlayerApi): undefined {
  if (!shown(player, "fullscreen") || !("requestFullscreen" in player.root || "webkitEnterFullscreen" in player.video)) return;
  button(player, "fl-fs", "Fullscreen").onclick = () => toggleFullscreen(player);
}
