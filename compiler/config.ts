/**
 * `__FL_CONFIG__`, the object baked into a video's entry (the contract with
 * player/): the video and its media, every live option group, the playlist
 * with each item's media resolved in the same workspace, and the events URL.
 */
import { readItem, type Settings } from "../contract/settings.ts";
import type { FeatureFlags } from "./flags.ts";
import type { BakedPlayerConfig, Orientation, Rendition } from "../contract/player-config.ts";

export type { BakedPlayerConfig } from "../contract/player-config.ts";

/** What the compiler reads of a video (the server's video row has these fields). */
export interface CompilerVideo {
  id: number;
  code: string;
  title: string;
  default_orientation: Orientation;
  plain_mode: boolean;
  created_at: Date | string;
  landscape_hls: string | null;
  portrait_hls: string | null;
  landscape_thumb: string | null;
  portrait_thumb: string | null;
  /** The measured size the encoder stored (`w`/`h`; `width`/`height` also read). */
  landscape_media: unknown;
  portrait_media: unknown;
}

/** What the compiler knows about a video an item points at. */
export type ItemMedia = Pick<CompilerVideo, "code" | "default_orientation" | "landscape_hls" | "portrait_hls" | "landscape_thumb" | "portrait_thumb"> & {
  /** Absent in rows read before playback protection. */
  require_signed_urls?: boolean;
};

function orientation(hls: string | null, poster: string | null, media: unknown, fallback: [number, number]): Rendition | null {
  if (hls === null && poster === null) return null;
  // The encoder stores the measured size in the media jsonb (as `w`/`h`; `width`/`height` also read); read it defensively.
  const m = (media ?? {}) as { w?: unknown; h?: unknown; width?: unknown; height?: unknown };
  const size = (...values: unknown[]) => values.find((v): v is number => typeof v === "number" && v > 0);
  const w = size(m.w, m.width) ?? fallback[0];
  const h = size(m.h, m.height) ?? fallback[1];
  return { hls, poster, w, h };
}

/** The item codes a playlist references, to resolve their media in one query. */
export function playlistCodes(settings: Settings): string[] {
  return [...new Set((settings.playlist_options.items ?? []).map((i) => i.video_code))];
}

export function playerConfig(opts: {
  video: CompilerVideo;
  workspaceCode: string;
  settings: Settings;
  flags: FeatureFlags;
  itemMedia: ItemMedia[];
}): BakedPlayerConfig {
  const { video, settings, flags } = opts;
  const playlist = settings.playlist_options;
  const media = new Map(opts.itemMedia.map((m) => [m.code, m]));
  return {
    video: {
      id: video.id,
      code: video.code,
      title: video.title,
      workspace_code: opts.workspaceCode,
      default_orientation: video.default_orientation,
      plain_mode: video.plain_mode,
      landscape: orientation(video.landscape_hls, video.landscape_thumb, video.landscape_media, [1280, 720]),
      portrait: orientation(video.portrait_hls, video.portrait_thumb, video.portrait_media, [720, 1280]),
      ...(flags.seo && { upload_date: new Date(video.created_at).toISOString() }),
    },
    settings,
    playlist: flags.playlist
      ? {
          playback_mode: playlist.playback_mode ?? "linear",
          auto_advance: playlist.auto_advance !== false,
          auto_advance_delay_ms: playlist.auto_advance_delay_ms ?? 3000,
          loop: playlist.loop === true,
          lesson_navigation: playlist.lesson_navigation ?? "sidebar",
          playlist_chrome: playlist.playlist_chrome ?? "rail",
          items: (playlist.items ?? []).map((item) => {
            const m = media.get(item.video_code);
            const portrait = m?.default_orientation === "portrait";
            return {
              ...readItem(item),
              hls: m ? ((portrait ? (m.portrait_hls ?? m.landscape_hls) : (m.landscape_hls ?? m.portrait_hls)) ?? null) : null,
              poster: m ? ((portrait ? (m.portrait_thumb ?? m.landscape_thumb) : (m.landscape_thumb ?? m.portrait_thumb)) ?? null) : null,
              ...(m?.require_signed_urls === true && { signed: true as const }),
            };
          }),
        }
      : null,
  };
}
