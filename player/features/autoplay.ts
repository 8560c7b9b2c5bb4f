import type { Feature } from "../types.ts";

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
    let prompt: HTMLButtonElement | null = null;
    const hide = () => {
      prompt?.remove();
      prompt = null;
    };
    if (opts.muted !== false) video.muted = true;
    if (video.muted && opts.unmute_prompt !== false && !player.plain) {
      prompt = document.createElement("button");
      prompt.type = "button";
      prompt.className = "fl-unmute";
      prompt.textContent = opts.unmute_prompt_text || "Click to unmute";
      prompt.onclick = () => {
        video.muted = false;
        video.currentTime = 0;
        hide();
        player.play();
      };
      player.layer.appendChild(prompt);
    }
    const onVolume = () => !video.muted && hide();
    video.addEventListener("volumechange", onVolume);
    player.play(true);
    return () => {
      hide();
      video.removeEventListener("volumechange", onVolume);
    };
  },
};
