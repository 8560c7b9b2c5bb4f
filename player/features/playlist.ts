import type { Feature, PlaylistItem, Source } from "../types.ts";
import { RANK_END } from "../overlay-ranks.ts";
import { icon, style } from "./lib/style.ts";
import { playbackToken, withToken } from "../protection.ts";

const toSource = (i: PlaylistItem, token?: string): Source => ({
  code: i.video_code,
  title: i.title || "",
  hls: withToken(i.hls, token),
  poster: withToken(i.poster, token) ?? i.thumb_url ?? null,
});
const clock = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`;

/**
 * The playlist stored on the container video (docs/api.md "Playlists"). The queue
 * is the items that have a stream, starting at the container's own entry when
 * it is one of them. Chrome: `rail` lists the items under the player, `button`
 * opens the list over it; lesson_navigation chooses the list ("sidebar"),
 * prev/next buttons ("next-button"), both or none. At an item's end:
 * lesson_completed, then after auto_advance_delay_ms the next item (or the
 * first again with loop), else playlist_ended. "Up next" is an overlay of the end
 * screen's rank (overlay-ranks.ts).
 */
export const playlist: Feature = {
  name: "playlist",
  setup(player) {
    const pl = player.config.playlist;
    const items = (pl?.items || []).filter((i) => i?.hls);
    if (!pl || !items.length) return;
    style(
      "fl-css-playlist",
      ".fl-list{background:var(--fl-bg);color:var(--fl-text);font:14px/1.3 var(--fl-font);margin:8px auto 0;padding:0;list-style:none;max-height:320px;overflow:auto;border-radius:var(--fl-radius)}" +
        ".fl-layer .fl-list{position:absolute;right:8px;top:8px;bottom:56px;width:min(320px,80%);margin:0;max-height:none;opacity:.95}" +
        ".fl-list li{display:flex;gap:8px;align-items:center;padding:6px 8px;cursor:pointer}.fl-list li:hover,.fl-list li.fl-on{background:#fff2}" +
        ".fl-list img{width:64px;height:36px;object-fit:cover;border-radius:3px}.fl-list small{opacity:.7;display:block}" +
        icon("fl-prev", "M6 5h2v14H6zm3 7 10-7v14z") +
        icon("fl-nextb", "M16 5h2v14h-2zm-1 7L5 19V5z") +
        icon("fl-pl", "M3 5h18v2H3zm0 6h18v2H3zm0 6h18v2H3z"),
    );
    const video = player.video;
    const nav = pl.lesson_navigation || "sidebar";
    const showList = nav === "sidebar" || nav === "both";
    const showButtons = nav === "next-button" || nav === "both";
    const delay = Math.min(30000, Math.max(0, pl.auto_advance_delay_ms ?? 3000));
    const cleanup: (() => void)[] = [];
    let index = Math.max(
      0,
      items.findIndex((i) => i.video_code === player.config.video.code),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    let upNext: HTMLElement | null = null;
    let release = () => {};
    let list: HTMLElement | null = null;

    const cancel = () => {
      clearTimeout(timer);
      release();
      upNext?.remove();
      upNext = null;
    };
    let loads = 0;
    const go = (i: number, play: boolean) => {
      cancel();
      index = (i + items.length) % items.length;
      mark();
      const item = items[index];
      const load = ++loads;
      // A protected item plays with a token of its own; a later choice wins over a slow answer.
      // Refused, it loads without one and the media host's 403 shows as the player's error.
      const show = (token?: string) => load === loads && player.load(toSource(item, token), play);
      if (__FL_SIGNED_ITEMS__ && item.signed) playbackToken(player.config.events_url, item.video_code).then(show, () => show());
      else show();
    };
    const mark = () => list?.querySelectorAll("li").forEach((li, i) => li.classList.toggle("fl-on", i === index));
    const btn = (label: string, cls: string, onclick: () => void) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "fl-btn " + cls;
      b.textContent = label;
      b.onclick = onclick;
      return b;
    };

    if (showList) {
      list = document.createElement("ol");
      list.className = "fl-list";
      items.forEach((item, i) => {
        const li = document.createElement("li");
        if (item.thumb_url) {
          const img = document.createElement("img");
          img.src = item.thumb_url;
          img.alt = "";
          img.loading = "lazy";
          li.appendChild(img);
        }
        const text = document.createElement("span");
        const small = document.createElement("small");
        small.textContent = [item.lesson_label, item.duration_s ? clock(item.duration_s) : ""].filter(Boolean).join(" · ");
        text.append(small, item.title || "");
        li.appendChild(text);
        li.onclick = () => go(i, true);
        list!.appendChild(li);
      });
      if (pl.playlist_chrome === "button" && player.controls) {
        list.hidden = true;
        player.layer.appendChild(list);
        const toggle = btn("", "fl-pl", () => (list!.hidden = !list!.hidden));
        toggle.setAttribute("aria-label", "Playlist");
        player.controls.appendChild(toggle);
        cleanup.push(() => toggle.remove());
      } else {
        // rail (and plain mode, which has no control row): the list sits under the player.
        player.mount.appendChild(list);
      }
      cleanup.push(() => list!.remove());
      mark();
    }
    if (showButtons && player.controls) {
      const grow = player.controls.querySelector(".fl-grow");
      const prev = btn("", "fl-prev", () => go(index - 1, true));
      const next = btn("", "fl-nextb", () => go(index + 1, true));
      prev.setAttribute("aria-label", "Previous lesson");
      next.setAttribute("aria-label", "Next lesson");
      player.controls.insertBefore(prev, grow);
      player.controls.insertBefore(next, grow);
      cleanup.push(() => (prev.remove(), next.remove()));
    }

    const onEnded = () => {
      // The container names the course, whichever item's batch carries the event.
      const container_video_code = player.config.video.code;
      player.collect("lesson_completed", { video_code: items[index].video_code, container_video_code });
      const last = index === items.length - 1;
      if (last && !pl.loop) {
        player.collect("playlist_ended", { container_video_code });
        return;
      }
      if (pl.auto_advance === false) return;
      upNext = document.createElement("div");
      upNext.className = "fl-next";
      const p = document.createElement("p");
      p.textContent = "Up next: " + (items[(index + 1) % items.length].title || "");
      upNext.append(
        p,
        btn("Play now", "", () => go(index + 1, true)),
        btn("Cancel", "fl-ghost", cancel),
      );
      player.layer.appendChild(upNext);
      release = player.overlay(upNext, RANK_END, { say: p.textContent });
      timer = setTimeout(() => go(index + 1, true), delay);
    };
    // Playing again (replay, a list click) cancels a pending advance.
    video.addEventListener("ended", onEnded);
    video.addEventListener("play", cancel);
    cleanup.push(
      () => video.removeEventListener("ended", onEnded),
      () => video.removeEventListener("play", cancel),
      cancel,
    );

    // The queue starts at its own entry: show that item's stream and poster.
    if (items[index].video_code !== player.source.code || !player.source.hls) go(index, false);
    return () => cleanup.forEach((f) => f());
  },
};
