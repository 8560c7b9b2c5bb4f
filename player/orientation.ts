import type { Orientation, PlayerConfig, Rendition } from "./types.ts";

/**
 * Portrait or landscape: `default_orientation` decides on larger screens; on a
 * phone-sized viewport (shorter side at most 768 px) the cut matching how the
 * phone is held wins when the video has both; with one cut, that one.
 */
export function pickRendition(
  config: PlayerConfig,
  viewport: { w: number; h: number } = { w: innerWidth, h: innerHeight },
): { orientation: Orientation; rendition: Rendition | null } {
  const { landscape, portrait, default_orientation } = config.video;
  let orientation: Orientation = default_orientation === "portrait" ? "portrait" : "landscape";
  if (landscape && portrait) {
    if (Math.min(viewport.w, viewport.h) <= 768) orientation = viewport.h > viewport.w ? "portrait" : "landscape";
  } else orientation = portrait && !landscape ? "portrait" : "landscape";
  return { orientation, rendition: config.video[orientation] };
}
