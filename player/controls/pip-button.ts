import type { PlayerApi } from "../types.ts";
import { button } from "./control.ts";

/** Picture in picture (controls_options.pip, off by default), where the browser offers it. */
export function pipButton(player: PlayerApi): undefined {
  const video = player.video;
  if (!player.controls || !player.settings.controls_options?.pip || !document.pictureInPictureEnabled || !("requestPictureInPicture" in video)) return;
  // A refusal (no user activation, a policy) leaves the player as it is.
  button(player, "fl-pip", "Picture in picture").onclick = () =>
    (document.pictureInPictureElement ? document.exitPictureInPicture() : video.requestPictureInPicture()).catch(() => {});
}
