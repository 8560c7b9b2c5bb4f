/**
 * A list of timed rows under the player (notes, the transcript): in time order,
 * each a button that seeks there; the row playback is in is highlighted
 * (`fl-on`, `aria-current`). Hidden while another playlist item plays.
 */
import type { PlayerApi } from "../../types.ts";
import { el, link, on, own, style } from "./style.ts";

export interface TimedRow {
  time_s: number;
  /** Where the row stops being current; the next row's time when absent. */
  end_s?: number;
  text: string;
  url?: string | null;
}

const clock = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`;

/** Renders `rows` into `parent` as an `<ol class="fl-tl {cls}">` of buttons `{rowCls}`; answers its removal. */
export function timedList(player: PlayerApi, parent: HTMLElement, cls: string, rowCls: string, label: string, rows: TimedRow[]): () => void {
  style(
    "fl-css-tl",
    ".fl-tl{list-style:none;margin:8px 0 0;padding:0;font:14px var(--fl-font);max-height:320px;overflow:auto}.fl-tl li{display:flex;gap:8px;align-items:baseline;padding:4px 6px;border-radius:4px}" +
      ".fl-tl li.fl-on{background:var(--fl-main);color:var(--fl-text)}.fl-tl button{all:unset;cursor:pointer;display:flex;gap:8px;flex:1}.fl-tl button:focus-visible{outline:2px solid var(--fl-main)}" +
      ".fl-tl time{font-variant-numeric:tabular-nums;opacity:.75}.fl-tl a{color:inherit}",
  );
  const list = rows.map((r) => ({ ...r, time_s: Math.max(0, Number(r.time_s) || 0) })).sort((a, b) => a.time_s - b.time_s);
  const ol = el("ol", `fl-tl ${cls}`, parent);
  ol.setAttribute("aria-label", label);
  const items = list.map((r) => {
    const li = el("li", "", ol);
    const b = el("button", rowCls, li);
    b.type = "button";
    el("time", "", b, clock(r.time_s));
    el("span", "", b, r.text);
    b.onclick = () => {
      player.seek(r.time_s);
      if (player.video.paused) player.play();
    };
    link(li, `${rowCls}-link`, r.url, "Open", () => undefined);
    return li;
  });
  let current = -1;
  const mark = () => {
    ol.hidden = !own(player);
    const t = player.video.currentTime;
    let at = -1;
    for (let i = 0; i < list.length; i++) if (t >= list[i]!.time_s && (t > 0 || !player.video.paused)) at = i;
    if (at >= 0 && list[at]!.end_s != null && t >= list[at]!.end_s!) at = -1;
    if (at === current) return;
    items[current]?.classList.remove("fl-on");
    items[current]?.removeAttribute("aria-current");
    current = at;
    items[at]?.classList.add("fl-on");
    items[at]?.setAttribute("aria-current", "true");
  };
  mark();
  const offs = [on(player.video, "timeupdate seeked playing", mark), player.on("source", mark)];
  return () => {
    offs.forEach((f) => f());
    ol.remove();
  };
}
