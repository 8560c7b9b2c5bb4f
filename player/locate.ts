/**
 * Where a bundle finds the service: nothing about a deployment is baked into a
 * bundle (README "Running on several machines"). A script is served at
 * `<root>/cdn/p/<code>.js` (a split test's at `<root>/cdn/s/<code>.js`), so the
 * events host is `<root>` and the media `<root>/media/`; a snippet whose script
 * comes from elsewhere (CDN_URL, S3_PUBLIC_URL) names them in the script URL's
 * query: `e` (the events host) and `m` (the media base). The bundle holds media
 * keys, resolved against the media base here; a URL (an older bundle's) is kept.
 */
import type { BakedPlayerConfig, PlayerConfig } from "../contract/player-config.ts";

export interface Locations {
  /** The events host's origin (and path prefix), without a trailing slash. */
  events: string;
  /** The base media keys resolve against, ending in a slash. */
  media: string;
}

/** The running script's URL: `document.currentScript` while a classic script runs first, else the page's. */
export const scriptUrl = (): string => (document.currentScript as HTMLScriptElement | null)?.src || location.href;

export function locate(script: string): Locations {
  const url = new URL(script);
  const query = url.searchParams;
  const root = new URL("../../", url).href;
  return { events: (query.get("e") || root).replace(/\/+$/, ""), media: query.get("m") || `${root}media/` };
}

/** A media reference as a URL: a key against the media base (keys are URL-safe), a URL as it is. */
export const mediaRef = (ref: string | null | undefined, at: Locations): string | null => (ref ? (/^\w+:/.test(ref) ? ref : at.media + ref) : null);

/** The config with every media reference a URL and the events host set (an older bundle's own URL wins). */
export function resolveConfig(config: BakedPlayerConfig, at: Locations): PlayerConfig {
  const media = <T extends { hls: string | null; poster: string | null } | null>(r: T): T =>
    r && { ...r, hls: mediaRef(r.hls, at), poster: mediaRef(r.poster, at) };
  const { video, playlist } = config;
  return {
    ...config,
    events_url: config.events_url || at.events,
    video: { ...video, landscape: media(video.landscape), portrait: media(video.portrait) },
    playlist: playlist && { ...playlist, items: playlist.items.map(media) },
  };
}
