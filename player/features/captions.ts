import type { Feature } from "../types.ts";
import type { PlayableTrack } from "./lib/vtt.ts";
import { icon, style } from "./lib/style.ts";

/**
 * captions_options.tracks [{src, srclang, label, default}] as `<track>`
 * elements (the browser renders them, with native HLS and with hls.js alike)
 * and a CC button that toggles them. The default track is the one marked
 * `default`, else the one matching default_language.
 */
export const captions: Feature = {
  name: "captions",
  setup(player) {
    const opts = player.settings.captions_options;
    const tracks = (opts?.tracks || []).filter((t): t is PlayableTrack => !!t?.src);
    const nameOf = (t: PlayableTrack) => t.label || t.srclang || "";
    if (opts?.enabled === false || !tracks.length) return;
    style(
      "fl-css-cc",
      icon("fl-cc", "M3 5h18v14H3zm2 2v10h14V7zm2 3h4v1.5H8.5v1h2.5V14H7zm6 0h4v1.5h-2.5v1H17V14h-4z") +
        ".fl-cc{opacity:.6}.fl-cc.fl-on{opacity:1}" +
        icon(
          "fl-gear",
          "M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8zm8.5 5.4 2-1.6-2-3.4-2.4.9a7 7 0 0 0-1.7-1L16 5.8h-4l-.4 2.5a7 7 0 0 0-1.7 1l-2.4-.9-2 3.4 2 1.6a7 7 0 0 0 0 2L5.5 17l2 3.4 2.4-.9a7 7 0 0 0 1.7 1l.4 2.5h4l.4-2.5a7 7 0 0 0 1.7-1l2.4.9 2-3.4-2-1.6a7 7 0 0 0 0-2z",
        ),
    );
    const video = player.video;
    // Caption files usually live on another origin than the page.
    video.crossOrigin = "anonymous";
    const els: HTMLTrackElement[] = [];
    // The track marked default, else the one in default_language, else the first.
    const marked = tracks.findIndex((t) => t.default);
    const inLanguage = tracks.findIndex((t) => t.srclang === opts?.default_language);
    let wantedNow = Math.max(0, marked >= 0 ? marked : inLanguage);
    let on = marked >= 0 || !!opts?.default_language;
    // captions_options.font_size, and the viewer's choice in the menu.
    const sizes = { small: "75%", medium: "100%", large: "150%" } as const;
    let size: keyof typeof sizes = opts?.font_size && opts.font_size in sizes ? opts.font_size : "medium";
    const css = document.createElement("style");
    const applySize = () => (css.textContent = `.fl-root video::cue{font-size:${sizes[size]}}`);
    applySize();
    document.head.appendChild(css);
    let btn: HTMLButtonElement | null = null;
    const apply = () => {
      const own = player.source.code === player.config.video.code;
      for (let i = 0; i < video.textTracks.length; i++) video.textTracks[i].mode = own && on && i === wantedNow ? "showing" : "disabled";
      btn?.classList.toggle("fl-on", on);
    };
    tracks.forEach((t) => {
      const el = document.createElement("track");
      el.kind = "subtitles";
      el.src = t.src;
      // The registry lets a track through without a language or a name: neither becomes the text "null".
      el.srclang = t.srclang || "";
      el.label = nameOf(t);
      video.appendChild(el);
      els.push(el);
    });
    if (player.controls) {
      btn = document.createElement("button");
      btn.type = "button";
      btn.className = "fl-btn fl-cc";
      btn.setAttribute("aria-label", "Captions");
      btn.onclick = () => {
        on = !on;
        apply();
      };
      player.controls.insertBefore(btn, player.controls.querySelector(".fl-mute,.fl-fs"));
    }
    // Language (or off) and size.
    const menu = player.menu("fl-gear", "Subtitles", () => [
      { label: "Off", checked: !on, run: () => ((on = false), apply()) },
      ...tracks.map((t, i) => ({ label: nameOf(t), checked: on && wantedNow === i, run: () => ((on = true), (wantedNow = i), apply()) })),
      ...(Object.keys(sizes) as (keyof typeof sizes)[]).map((k) => ({
        label: "Size: " + k,
        checked: size === k,
        run: () => ((size = k), applySize()),
      })),
    ]);
    apply();
    const off = player.on("source", apply);
    return () => {
      off();
      els.forEach((e) => e.remove());
      btn?.remove();
      menu?.remove();
      css.remove();
    };
  },
};
