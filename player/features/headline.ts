import type { Feature } from "../types.ts";
import { RANK_HEADLINE } from "../overlay-ranks.ts";
import { el, style } from "./lib/style.ts";

/**
 * headline_options {text, color, background_color, font_size_px}: a headline over the
 * poster, until the viewer plays; an overlay (overlay-ranks.ts) that waits while one
 * above it (the resume prompt) has the stage.
 */
export const headline: Feature = {
  name: "headline",
  setup(player) {
    const o = player.settings.headline_options;
    if (!o?.text) return;
    style(
      "fl-css-headline",
      ".fl-headline{position:absolute;left:0;right:0;top:0;margin:0;padding:48px 18px 16px;text-align:center;font-weight:700;line-height:1.25;pointer-events:none}.fl-active .fl-headline{display:none}",
    );
    const box = el("p", "fl-headline", player.layer, o.text);
    box.style.color = o.color || "#fff";
    box.style.background = o.background_color || "transparent";
    box.style.fontSize = `${o.font_size_px ?? 28}px`;
    const release = player.overlay(box, RANK_HEADLINE);
    const hide = () => (release(), box.remove());
    const off = player.on("intent", hide);
    return () => {
      off();
      hide();
    };
  },
};
