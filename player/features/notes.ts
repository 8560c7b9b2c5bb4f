import type { Feature } from "../types.ts";
import { el, link, on, own, style } from "./lib/style.ts";

const clock = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`;

/**
 * notes_options.notes [{time_s, text, url?}]: the creator's timed notes listed
 * under the player (beside it when the page is wide enough), in time order. The
 * note playback last passed is highlighted (`fl-on`, `aria-current`); a click
 * on a note seeks there. Hidden while another playlist item plays.
 */
export const notes: Feature = {
  name: "notes",
  setup(player) {
    const list = (player.settings.notes_options?.notes || [])
      .filter((n) => n && typeof n.text === "string")
      .map((n) => ({ ...n, time_s: Math.max(0, Number(n.time_s) || 0) }))
      .sort((a, b) => a.time_s - b.time_s);
    style(
      "fl-css-notes",
      ".fl-notes{list-style:none;margin:8px 0 0;padding:0;font:14px var(--fl-font);max-height:320px;overflow:auto}.fl-notes li{display:flex;gap:8px;align-items:baseline;padding:4px 6px;border-radius:4px}" +
        ".fl-notes li.fl-on{background:var(--fl-main);color:var(--fl-text)}.fl-notes button{all:unset;cursor:pointer;display:flex;gap:8px;flex:1}.fl-notes time{font-variant-numeric:tabular-nums;opacity:.75}" +
        ".fl-notes a{color:inherit}",
    );
    const ol = el("ol", "fl-notes", player.mount);
    ol.setAttribute("aria-label", "Notes");
    const rows = list.map((n) => {
      const li = el("li", "", ol);
      const b = el("button", "fl-note", li);
      b.type = "button";
      el("time", "", b, clock(n.time_s));
      el("span", "", b, n.text);
      b.onclick = () => {
        player.seek(n.time_s);
        if (player.video.paused) player.play();
      };
      link(li, "fl-note-link", n.url, "Open", () => undefined);
      return li;
    });
    let current = -1;
    const mark = () => {
      ol.hidden = !own(player);
      const t = player.video.currentTime;
      let at = -1;
      for (let i = 0; i < list.length; i++) if (t >= list[i]!.time_s && (t > 0 || !player.video.paused)) at = i;
      if (at === current) return;
      rows[current]?.classList.remove("fl-on");
      rows[current]?.removeAttribute("aria-current");
      current = at;
      rows[at]?.classList.add("fl-on");
      rows[at]?.setAttribute("aria-current", "true");
    };
    const offs = [on(player.video, "timeupdate seeked playing", mark), player.on("source", mark)];
    return () => {
      offs.forEach((f) => f());
      ol.remove();
    };
  },
};
