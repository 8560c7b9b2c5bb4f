/**
 * Player errors in hls.js's shape: `{type, details, fatal}`. `type` is the
 * kind of failure, `details` a short code (hls.js's own for stream errors,
 * e.g. `manifestLoadError`), `fatal` means playback of this source stopped.
 * They travel on the player's bus and, as `error_type`, `details` and
 * `fatal`, in `/v1/collect` (player/README.md "Events").
 */
import type { PlayerErrorType } from "../contract/events.ts";

/** The kinds the events host accepts (its `PLAYER_ERROR_TYPES`). */
export type ErrorType = PlayerErrorType;
export const ErrorTypes = { NETWORK: "network", MEDIA: "media", MUX: "mux", OTHER: "other" } as const satisfies Record<string, ErrorType>;

/** The player's own codes; hls.js's details pass through as they are. */
export const ErrorDetails = {
  /** The source has no stream yet (media still encoding). */
  NO_STREAM: "noStream",
  /** The hls.js chunk did not load. */
  HLS_CHUNK_LOAD: "hlsChunkLoadError",
  /** The browser refused play() (autoplay policy). */
  PLAY_NOT_ALLOWED: "playNotAllowed",
  /** A feature module threw while setting up. */
  FEATURE_SETUP: "featureSetupError",
  /** A listener on the bus threw. */
  HANDLER: "handlerError",
} as const;

export interface PlayerError {
  type: ErrorType;
  details: string;
  fatal: boolean;
  /** The exception behind it, for whoever listens on the bus; never sent. */
  error?: unknown;
}

const HLS_TYPES: Record<string, ErrorType> = { networkError: "network", mediaError: "media", muxError: "mux" };

/** hls.js's ErrorTypes (networkError, mediaError, muxError, keySystemError, otherError) as ours. */
export const fromHlsType = (type: string): ErrorType => HLS_TYPES[type] || ErrorTypes.OTHER;

const MEDIA_DETAILS = ["mediaAborted", "mediaNetworkError", "mediaDecodeError", "mediaSourceNotSupported"];

/** A `<video>` MediaError code (1 aborted, 2 network, 3 decode, 4 source not supported). */
export function fromMediaError(code: number): Pick<PlayerError, "type" | "details"> {
  return { type: code === 2 ? ErrorTypes.NETWORK : ErrorTypes.MEDIA, details: MEDIA_DETAILS[code - 1] || "mediaError" };
}
