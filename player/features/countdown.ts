import type { Feature } from "../types.ts";
import { el, style } from "./lib/style.ts";

const two = (n: number) => (n < 10 ? "0" : "") + n;

/** "2d 03:04:05" or "03:04:05". */
export function remaining(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400);
  const clock = `${two(Math.floor((s % 86400) / 3600))}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
  return d ? `${d}d ${clock}` : clock;
}

/**
 * countdown_options {ends_at, text, expired_text}: a countdown to ends_at over
 * the player, ticking every second; once it has passed, expired_text (or
 * nothing).
 */
export const countdown: Feature = {
  name: "countdown",
  setup(player) {
    const o = player.settings.countdown_options || {};
    const end = Date.parse(o.ends_at || "");
    if (Number.isNaN(end)) return;
    style(
      "fl-css-countdown",
      ".fl-countdown{position:absolute;left:8px;top:8px;background:#000b;color:#fff;padding:6px 10px;border-radius:6px;font:600 14px var(--fl-font);pointer-events:none}.fl-countdown b{font-variant-numeric:tabular-nums;margin-left:6px}",
    );
    const box = el("div", "fl-countdown", player.layer);
    box.setAttribute("role", "timer");
    let timer: ReturnType<typeof setInterval> | undefined;
    const tick = () => {
      const left = end - Date.now();
      if (left <= 0) {
        clearInterval(timer);
        box.textContent = o.expired_text || "";
        box.hidden = !o.expired_text;
        return;
      }
      box.textContent = o.text || "";
      el("b", "", box, remaining(left));
    };
    tick();
    timer = setInterval(tick, 1000);
    return () => {
      clearInterval(timer);
      box.remove();
    };
  },
};
