import type { Feature } from "../types.ts";

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
    const tracks = (opts?.tracks || []).filter((t) => t?.src);
    if (opts?.enabled === false || !tracks.length) return;
    const video = player.video;
    // Caption files usually live on another origin than the page.
    video.crossOrigin = "anonymous";
    const wanted = Math.max(
      0,
      tracks.findIndex((t) => t.default) >= 0 ? tracks.findIndex((t) => t.default) : tracks.findIndex((t) => t.srclang === opts?.default_language),
    );
    const els: HTMLTrackElement[] = [];
    let on = tracks.some((t) => t.default) || !!opts?.default_language;
    let btn: HTMLButtonElement | null = null;
    const apply = () => {
      const own = player.source.code === player.config.video.code;
      for (let i = 0; i < video.textTracks.length; i++) video.textTracks[i].mode = own && on && i === wanted ? "showing" : "disabled";
      btn?.classList.toggle("fl-on", on);
    };
    tracks.forEach((t) => {
      const el = document.createElement("track");
      el.kind = "subtitles";
      el.src = t.src;
      el.srclang = t.srclang;
      el.label = t.label || t.srclang;
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
    apply();
    const off = player.on("source", apply);
    return () => {
      off();
      els.forEach((e) => e.remove());
      btn?.remove();
    };
  },
};
