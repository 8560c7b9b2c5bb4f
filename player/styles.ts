import type { PlayerSettings } from "./types.ts";

const svg = (d: string) => `url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'%3E%3Cpath d='${d}'/%3E%3C/svg%3E")`;
const PLAY = svg("M7 4v16l13-8z");
const PAUSE = svg("M6 4h4v16H6zm8 0h4v16h-4z");
const VOL = svg("M3 9v6h4l5 5V4L7 9zm13 3a4 4 0 0 0-2-3.5v7A4 4 0 0 0 16 12z");
const MUTED = svg("M3 9v6h4l5 5V4L7 9zm15.6 3 2.4-2.4-1.4-1.4-2.4 2.4-2.4-2.4-1.4 1.4 2.4 2.4-2.4 2.4 1.4 1.4 2.4-2.4 2.4 2.4 1.4-1.4z");
const FS = svg("M4 4h6v2H6v4H4zm10 0h6v6h-2V6h-4zM4 14h2v4h4v2H4zm14 0h2v6h-6v-2h4z");
const PIP = svg("M3 5h18v14H3zm2 2v10h14V7zm6 5h7v4h-7z");

/** One stylesheet per page, scoped under `.fl-root`; colours come from custom properties per player. */
export const CSS = `
.fl-root{position:relative;width:100%;overflow:hidden;background:var(--fl-bg);color:var(--fl-text);font:14px/1.3 var(--fl-font);border-radius:var(--fl-radius);margin:0 auto;user-select:none;box-sizing:border-box}
.fl-root *{box-sizing:border-box}
.fl-video{position:absolute;inset:0;width:100%;height:100%;background:var(--fl-bg);object-fit:contain;display:block}
.fl-layer{position:absolute;inset:0;pointer-events:none}
.fl-layer>*{pointer-events:auto}
.fl-big{position:absolute;left:50%;top:50%;width:72px;height:72px;margin:-36px 0 0 -36px;border:0;border-radius:50%;background:var(--fl-main);cursor:pointer;box-shadow:0 2px 12px #0006}
.fl-big::before{content:"";position:absolute;inset:0;background:var(--fl-on-main);-webkit-mask:${PLAY} 58% 50%/40% no-repeat;mask:${PLAY} 58% 50%/40% no-repeat}
.fl-playing .fl-big,.fl-playing .fl-prompt{display:none}
.fl-controls{position:absolute;left:0;right:0;bottom:0;display:flex;align-items:center;gap:6px;padding:14px 8px 6px;background:linear-gradient(transparent,#0009);opacity:0;transition:opacity .2s;flex-wrap:wrap}
.fl-active .fl-controls{opacity:1}
.fl-playing.fl-idle .fl-controls{opacity:0}
.fl-track{position:relative;flex:1 0 100%;height:var(--fl-h);background:var(--fl-track);cursor:pointer;border-radius:2px;order:-1}
.fl-plain .fl-track{display:none}
.fl-fill{position:absolute;left:0;top:0;bottom:0;width:0;background-color:var(--fl-bar);border-radius:2px}
.fl-mark{position:absolute;top:0;bottom:0;width:3px;margin-left:-1px;background:var(--fl-text);opacity:.8}
.fl-btn{border:0;background:none;color:var(--fl-icon);font:inherit;cursor:pointer;min-width:28px;height:28px;padding:0 6px;border-radius:4px}
.fl-btn:hover{background:#fff2}
.fl-play,.fl-mute,.fl-fs,.fl-pip{background:var(--fl-icon);-webkit-mask:${PLAY} center/20px no-repeat;mask:${PLAY} center/20px no-repeat}
.fl-play.fl-on{-webkit-mask-image:${PAUSE};mask-image:${PAUSE}}
.fl-mute{-webkit-mask-image:${VOL};mask-image:${VOL}}.fl-mute.fl-on{-webkit-mask-image:${MUTED};mask-image:${MUTED}}
.fl-fs{-webkit-mask-image:${FS};mask-image:${FS}}
.fl-pip{-webkit-mask-image:${PIP};mask-image:${PIP}}
.fl-root:focus-within .fl-controls{opacity:1}
.fl-root :focus-visible,.fl-root:focus-visible{outline:2px solid var(--fl-ring);outline-offset:1px}
.fl-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.fl-track::before{content:"";position:absolute;left:0;right:0;top:-8px;bottom:-8px}
.fl-menu{position:absolute;right:8px;bottom:48px;max-height:70%;overflow:auto;background:#111e;color:#fff;border-radius:6px;padding:4px 0;min-width:140px;z-index:3}
.fl-menu button{display:block;width:100%;text-align:left;border:0;background:none;color:inherit;font:inherit;padding:8px 12px 8px 26px;cursor:pointer;min-height:32px}
.fl-menu button:hover,.fl-menu button:focus{background:#fff3}
.fl-menu [aria-checked=true]::before{content:"\u2713";position:absolute;margin-left:-16px}
.fl-err{position:absolute;inset:0;display:flex;flex-direction:column;align-items:center;justify-content:center;gap:12px;background:#000d;color:#fff;text-align:center;padding:16px;z-index:4}
.fl-err .fl-btn{background:#fff;color:#000;padding:0 16px;height:36px}
@media (pointer:coarse){.fl-btn,.fl-menu button{min-width:44px;min-height:44px}.fl-track::before{top:-20px;bottom:-20px}}
.fl-time,.fl-chapter{font-variant-numeric:tabular-nums;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.fl-grow{flex:1}
.fl-prompt,.fl-next{position:absolute;left:50%;transform:translateX(-50%);top:12px;background:#000b;color:#fff;padding:10px 14px;border-radius:8px;text-align:center}
.fl-prompt p,.fl-next p{margin:0 0 8px}
.fl-prompt .fl-btn,.fl-next .fl-btn{background:var(--fl-main);color:var(--fl-on-main);margin:0 4px}
.fl-prompt .fl-ghost{background:#fff3}
.fl-wait{display:none!important}
`;

/** Relative luminance (WCAG) of #rgb / #rrggbb(aa); NaN for anything else (named colours, rgb()). */
function lum(c: string): number {
  let hex = /^#([0-9a-f]{3,8})$/i.exec(c.trim())?.[1] || "";
  if (hex.length < 6) hex = hex.replace(/./g, "$&$&");
  if (hex.length < 6) return Number.NaN;
  const ch = [0, 2, 4].map((i) => {
    const v = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * ch[0]! + 0.7152 * ch[1]! + 0.0722 * ch[2]!;
}

/** WCAG contrast ratio of two colours (NaN when either is not a hex colour). */
export function contrast(a: string, b: string): number {
  const [x, y] = [lum(a), lum(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

/**
 * `fg` when it keeps WCAG AA contrast on `bg` (`min`: 4.5 for text, 3 for icons),
 * else black or white, whichever contrasts more. Colours that are not hex pass.
 */
export function readable(fg: string, bg: string, min = 4.5): string {
  const r = contrast(fg, bg);
  if (!(r < min)) return fg;
  return contrast("#000", bg) > contrast("#fff", bg) ? "#000" : "#fff";
}

/** The per-player custom properties from style_options and progress_options. */
export function themeVars(s: PlayerSettings): Record<string, string> {
  const st = s.style_options || {};
  const pr = s.progress_options || {};
  const bg = st.background_color || "#000";
  const main = st.main_color || "#2563eb";
  // WCAG AA: text on the background (cards) and on the main colour (buttons) at 4.5:1; control icons on
  // the control row's dark gradient and focus rings at 3:1. A chosen colour that fails falls back to black or white.
  const text = readable(st.text_color || "#fff", bg);
  return {
    "--fl-main": main,
    "--fl-bg": bg,
    "--fl-text": text,
    "--fl-icon": readable(text, "#000", 3),
    "--fl-on-main": readable(text, main),
    "--fl-ring": readable(main, "#000", 3),
    "--fl-font": st.font_family || "system-ui,sans-serif",
    "--fl-radius": (st.border_radius ?? 8) + "px",
    "--fl-bar": pr.bar_color || st.main_color || "#2563eb",
    "--fl-track": pr.background_color || "#fff3",
    "--fl-h": (pr.height_px ?? 4) + "px",
  };
}

export function injectCss(doc: Document): void {
  if (doc.getElementById("fl-css")) return;
  const style = doc.createElement("style");
  style.id = "fl-css";
  style.textContent = CSS;
  doc.head.appendChild(style);
}
