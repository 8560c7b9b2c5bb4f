import type { Feature } from "../types.ts";
import { el, style } from "./lib/style.ts";

const WEB = /^https?:\/\//i;

/**
 * A logo at the top right of the player: branding_options.logo_url when
 * `show_logo` or `watermark` is on (else style_options.logo_url); a link to
 * `logo_link` (new tab) unless it is a watermark, which is half transparent
 * and lets clicks through. Only web URLs are used.
 */
export const branding: Feature = {
  name: "branding",
  setup(player) {
    const b = player.settings.branding_options || {};
    const url = (b.show_logo || b.watermark ? b.logo_url : null) || player.settings.style_options?.logo_url;
    if (!url || !WEB.test(url)) return;
    style(
      "fl-css-logo",
      ".fl-logo{position:absolute;top:8px;right:8px;max-width:30%;z-index:2}.fl-logo img{max-height:32px;max-width:100%;display:block}.fl-wm{opacity:.5;pointer-events:none}",
    );
    const href = !b.watermark && b.logo_link && WEB.test(b.logo_link) ? b.logo_link : null;
    const box = el(href ? "a" : "div", "fl-logo" + (b.watermark ? " fl-wm" : ""), player.root);
    if (href) {
      const a = box as HTMLAnchorElement;
      a.href = href;
      a.target = "_blank";
      a.rel = "noopener";
    }
    const img = el("img", "", box);
    img.src = url;
    // A link needs a name; a plain logo is decoration.
    img.alt = href ? "Visit " + new URL(href).hostname : "";
    return () => box.remove();
  },
};
