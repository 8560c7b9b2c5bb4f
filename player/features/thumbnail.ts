import type { Feature } from "../types.ts";
import { RANK_THUMB } from "../overlay-ranks.ts";
import { el, own, style } from "./lib/style.ts";

/**
 * thumbnail_options {mode, custom_url, show_play_overlay, overlay_text}: the
 * poster is the video's own (`poster`), custom_url (`custom`) or none; with
 * the play overlay the poster is dimmed under the play button and
 * overlay_text, and a click anywhere plays; without it the play button is
 * hidden too (a click on the picture still plays). The overlay ranks last
 * (overlay-ranks.ts): it waits while any other has the stage.
 */
export const thumbnail: Feature = {
  name: "thumbnail",
  setup(player) {
    const o = player.settings.thumbnail_options || {};
    style(
      "fl-css-thumb",
      ".fl-thumb{position:absolute;inset:0;background:#0008;cursor:pointer;display:flex;align-items:flex-end;justify-content:center;padding-bottom:18%}" +
        ".fl-thumb p{margin:0;font:700 20px var(--fl-font);color:var(--fl-text);text-shadow:0 1px 4px #000}.fl-active .fl-thumb{display:none}.fl-nooverlay:not(.fl-active) .fl-big{display:none}",
    );
    const poster = () => {
      if (!own(player)) return;
      if (o.mode === "custom" && o.custom_url && /^https?:\/\//i.test(o.custom_url)) player.video.poster = o.custom_url;
      else if (o.mode === "none") player.video.removeAttribute("poster");
    };
    poster();
    let overlay: HTMLElement | null = null;
    let release = () => {};
    if (o.show_play_overlay === false) player.root.classList.add("fl-nooverlay");
    else {
      overlay = el("div", "fl-thumb", null);
      // Under the play button, over the poster.
      player.layer.prepend(overlay);
      el("p", "", overlay, o.overlay_text);
      overlay.onclick = () => player.play();
      release = player.overlay(overlay, RANK_THUMB);
    }
    // Gone once playing (as the CSS hides it), so it holds the stage no longer.
    const offs = [player.on("source", poster), player.on("intent", release)];
    return () => {
      offs.forEach((f) => f());
      release();
      overlay?.remove();
      player.root.classList.remove("fl-nooverlay");
    };
  },
};
