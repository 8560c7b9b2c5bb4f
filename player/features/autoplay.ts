import type { Feature } from "../types.ts";
import { RANK_UNMUTE } from "../overlay-ranks.ts";
import { overlaySlot, style } from "./lib/style.ts";

/**
 * autoplay_options: starts muted (browsers only allow muted autoplay) and,
 * with unmute_prompt, shows a prompt; a click unmutes and restarts from the
 * beginning, so the viewer hears the whole message (the usual VSL behaviour).
 * If the browser still refuses, the poster and play button stay.
 */
export const autoplay: Feature = {
  name: "autoplay",
  setup(player) {
    const opts = player.settings.autoplay_options;
    if (!opts || opts.enabled === false) return;
    const video = player.video;
    const unmute = overlaySlot(player);
    if (opts.muted !== false) video.muted = true;
    if (video.muted && opts.unmute_prompt !== false && !player.plain) {
      style(
        "fl-css-unmute",
        ".fl-unmute{position:absolute;left:50%;transform:translateX(-50%);border:0;border-radius:8px;background:var(--fl-main);color:var(--fl-on-main);font:600 16px var(--fl-font);cursor:pointer;top:50%;margin-top:-24px;padding:12px 20px}",
      );
      const prompt = document.createElement("button");
      prompt.type = "button";
      prompt.className = "fl-unmute";
      prompt.textContent = opts.unmute_prompt_text || "Click to unmute";
      prompt.onclick = () => {
        video.muted = false;
        video.currentTime = 0;
        unmute.hide();
        player.play();
      };
      player.layer.appendChild(prompt);
      unmute.show(prompt, RANK_UNMUTE);
    }
    const onVolume = () => !video.muted && unmute.hide();
    video.addEventListener("volumechange", onVolume);
    player.play(true);
    return () => {
      unmute.hide();
      video.removeEventListener("volumechange", onVolume);
    };
  },
};
