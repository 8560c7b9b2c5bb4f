import type { Events } from "hls.js/light";
import type { Feature } from "../types.ts";

/** hls.js's event name, without importing hls.js (the core loads it on its own chunk). */
const FRAG_LOADED = "hlsFragLoaded" as Events.FRAG_LOADED;

/**
 * turbo_options {enabled, preload_segments}: the fastest start (player/README.md
 * "Fast start"). Under hls.js the first segment comes from the lowest rendition, the
 * smallest picture, and the ABR climbs the ladder once playback started; when
 * playback_options.preload allows (not "none"), the stream is attached while the page
 * is idle and its first preload_segments segments are fetched, so a play press shows a
 * frame without waiting for the network. Native HLS starts at the variant the master
 * lists first (Apple's players) or the lowest BANDWIDTH (Chromium's): the smallest
 * picture, as the encoder writes masters (server/domains/encoding/hls-authoring.ts);
 * the browser decides how much it buffers once the source is attached.
 */
export const turbo: Feature = {
  name: "turbo",
  setup(player) {
    const segments = Math.max(0, Math.min(10, player.settings.turbo_options?.preload_segments ?? 1));
    player.preloadSegments = segments;
    let asked = false;
    const offs = [
      player.on("source", () => (asked = false)),
      player.on("intent", () => (asked = true)),
      player.on("hls", (hls) => {
        hls.config.startLevel = 0;
        if (asked) return;
        // Before play intent, buffering stops after the first segments (hls.js loads one fragment at a time).
        let loaded = 0;
        hls.on(FRAG_LOADED, (_e, { frag }) => {
          if (!asked && frag.type === "main" && ++loaded >= segments) hls.pauseBuffering();
        });
        const off = player.on("intent", () => {
          off();
          hls.resumeBuffering();
        });
        offs.push(off);
      }),
    ];
    return () => offs.forEach((f) => f());
  },
};
