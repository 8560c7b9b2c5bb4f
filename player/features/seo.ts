import type { Feature } from "../types.ts";
import { on } from "./lib/style.ts";
import { cuesOf, isoDuration, pickTrack } from "./lib/vtt.ts";

/**
 * seo_options {title, description, transcript_enabled}: a schema.org
 * VideoObject as JSON-LD in the page's <head>, one per video (search engines
 * read scripts a page adds). The duration joins once the player knows it; with
 * transcript_enabled, the text of the default captions track.
 */
export const seo: Feature = {
  name: "seo",
  setup(player) {
    const opts = player.settings.seo_options;
    const v = player.config.video;
    const r = (v.default_orientation === "portrait" ? v.portrait || v.landscape : v.landscape || v.portrait) || null;
    const id = "fl-ld-" + v.code;
    if (document.getElementById(id)) return;
    const name = opts?.title?.trim() || v.title;
    const data: Record<string, unknown> = {
      "@context": "https://schema.org",
      "@type": "VideoObject",
      name,
      description: opts?.description?.trim() || name,
    };
    if (v.upload_date) data.uploadDate = v.upload_date;
    if (r?.poster) data.thumbnailUrl = r.poster;
    if (r?.hls) data.embedUrl = data.contentUrl = r.hls;
    const script = document.createElement("script");
    script.type = "application/ld+json";
    script.id = id;
    const write = () => (script.textContent = JSON.stringify(data).replace(/</g, "\\u003c"));
    const duration = () => {
      const d = player.source.code === v.code ? isoDuration(player.video.duration) : null;
      if (d && d !== data.duration) {
        data.duration = d;
        write();
      }
    };
    write();
    document.head.appendChild(script);
    duration();
    const track = opts?.transcript_enabled ? pickTrack(player.settings) : null;
    if (track)
      cuesOf(track.src).then((cues) => {
        if (!cues.length) return;
        data.transcript = cues.map((c) => c.text).join(" ");
        write();
      });
    const off = on(player.video, "loadedmetadata durationchange", duration);
    return () => {
      off();
      script.remove();
    };
  },
};
