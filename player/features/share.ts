import type { Feature } from "../types.ts";
import { el, style } from "./lib/style.ts";

/** Each network's own share page for a URL (no third-party script is loaded). */
const NETWORKS: Record<string, [label: string, share: (url: string) => string]> = {
  facebook: ["Facebook", (u) => `https://www.facebook.com/sharer/sharer.php?u=${u}`],
  x: ["X", (u) => `https://x.com/intent/tweet?url=${u}`],
  linkedin: ["LinkedIn", (u) => `https://www.linkedin.com/sharing/share-offsite/?url=${u}`],
  whatsapp: ["WhatsApp", (u) => `https://wa.me/?text=${u}`],
  telegram: ["Telegram", (u) => `https://t.me/share/url?url=${u}`],
  reddit: ["Reddit", (u) => `https://www.reddit.com/submit?url=${u}`],
  pinterest: ["Pinterest", (u) => `https://pinterest.com/pin/create/button/?url=${u}`],
  email: ["Email", (u) => `mailto:?body=${u}`],
};

/** share_options.networks: share links for the page the player is on, top right over the player while paused or hovered; a click is a `share_click`. */
export const share: Feature = {
  name: "share",
  setup(player) {
    const networks = (player.settings.share_options?.networks || []).filter((n) => NETWORKS[n]);
    if (!networks.length) return;
    style(
      "fl-css-share",
      ".fl-share{position:absolute;top:8px;right:8px;display:flex;gap:4px;opacity:0;transition:opacity .2s}.fl-root:not(.fl-playing) .fl-share,.fl-root:hover .fl-share,.fl-share:focus-within{opacity:1}" +
        ".fl-share a{background:#000a;color:#fff;font:600 12px var(--fl-font);padding:6px 8px;border-radius:4px;text-decoration:none}.fl-share a:hover{background:var(--fl-main)}",
    );
    const bar = el("div", "fl-share", player.layer);
    bar.setAttribute("aria-label", "Share");
    for (const network of networks) {
      const [label, shareUrl] = NETWORKS[network]!;
      const a = el("a", `fl-share-${network}`, bar, label);
      a.setAttribute("aria-label", `Share on ${label}`);
      a.target = "_blank";
      a.rel = "noopener";
      // The page's URL at click time (a single-page app may have moved on).
      a.onclick = () => {
        a.href = shareUrl(encodeURIComponent(location.href));
        player.collect("share_click", { network });
      };
      a.href = shareUrl(encodeURIComponent(location.href));
    }
    return () => bar.remove();
  },
};
