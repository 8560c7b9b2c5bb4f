import type { Feature } from "../types.ts";

/**
 * chapters_options.chapters [{time_s, title}]: markers on the progress bar
 * (click to jump) and the current chapter's title in the control row.
 * Chapters belong to the container video, not to playlist items.
 */
export const chapters: Feature = {
  name: "chapters",
  setup(player) {
    const opts = player.settings.chapters_options;
    // The registry lets a chapter through without a time (left out here) or with a null title (shown as none, not "null").
    const list = (opts?.chapters || [])
      .map(({ time_s = -1, title }) => ({ time_s, title: title || "" }))
      .filter((c) => c.time_s >= 0)
      .sort((a, b) => a.time_s - b.time_s);
    if (opts?.enabled === false || !list.length) return;
    const video = player.video;
    const own = () => player.source.code === player.config.video.code;
    const label = player.controls ? document.createElement("span") : null;
    if (label) {
      label.className = "fl-chapter";
      player.controls!.insertBefore(label, player.controls!.querySelector(".fl-grow"));
    }
    // The chapter list as a menu: each item seeks to its chapter (through the facade, so limits and cloak hold).
    const menu = player.menu("fl-chm", "Chapters", () =>
      own() ? list.map((c) => ({ label: c.title, checked: label?.textContent === c.title, run: () => player.seek(c.time_s) })) : [],
    );
    if (menu) menu.textContent = "Chapters";
    const marks: HTMLElement[] = [];
    const layout = () => {
      marks.forEach((m) => m.remove());
      marks.length = 0;
      const d = video.duration;
      if (!player.track || !own() || !(d > 0) || !Number.isFinite(d)) return;
      for (const c of list) {
        if (c.time_s <= 0 || c.time_s >= d) continue;
        const m = document.createElement("div");
        m.className = "fl-mark";
        m.title = c.title;
        m.style.left = (c.time_s / d) * 100 + "%";
        m.onclick = (e) => {
          e.stopPropagation();
          video.currentTime = c.time_s;
        };
        player.track.appendChild(m);
        marks.push(m);
      }
    };
    const current = () => {
      if (!label) return;
      let title = "";
      if (own()) for (const c of list) if (c.time_s <= video.currentTime) title = c.title;
      if (label.textContent !== title) label.textContent = title;
    };
    video.addEventListener("durationchange", layout);
    video.addEventListener("timeupdate", current);
    const off = player.on("source", () => {
      layout();
      current();
    });
    return () => {
      off();
      video.removeEventListener("durationchange", layout);
      video.removeEventListener("timeupdate", current);
      marks.forEach((m) => m.remove());
      label?.remove();
      menu?.remove();
    };
  },
};
