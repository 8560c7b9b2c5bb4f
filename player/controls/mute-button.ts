import type { PlayerApi } from "../types.ts";
import { listen } from "../dom.ts";
import { attr, button, shown, type Teardown } from "./control.ts";
import { toggleMute } from "./volume.ts";

/** Mute/unmute (controls_options.volume): named for what it does next, `fl-on` while muted. */
export function muteButton(player: PlayerApi): Teardown | undefined {
  if (!shown(player, "volume")) return;
  const video = player.video;
  const b = button(player, "fl-mute", "Mute");
  b.onclick = () => toggleMute(video);
  const update = () => {
    b.classList.toggle("fl-on", video.muted);
    attr(b, "aria-label", video.muted ? "Unmute" : "Mute");
  };
  update();
  return listen(video, "volumechange", update);
}
