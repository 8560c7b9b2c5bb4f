/**
 * What the browser sends the events host: the player's `/v1/collect` batches and
 * the tracking core's `/v1/track` events (docs/api.md "Custom events", "Beyond the
 * core interface"). The server's request schemas are checked against these types
 * when it compiles (server/hosts/events/model.ts).
 */

/** The kinds of player events, in the order the collect path documents them. */
export const PLAYER_EVENT_TYPES = [
  "load",
  "autoplay",
  "unmute",
  "play",
  "pause",
  "seek",
  "ended",
  "watched",
  "heartbeat",
  "milestone",
  "cta_click",
  "lesson_completed",
  "playlist_ended",
  "lead_form_submitted",
  "quiz_answered",
  "timed_event",
  "share_click",
  "startup",
  "rebuffer",
  "error",
] as const;
export type PlayerEventType = (typeof PLAYER_EVENT_TYPES)[number];

/** An `error` event's kind, as hls.js's ErrorTypes (player/errors.ts). */
export const PLAYER_ERROR_TYPES = ["network", "media", "mux", "other"] as const;
export type PlayerErrorType = (typeof PLAYER_ERROR_TYPES)[number];

/** One player event as it travels in a `/v1/collect` batch. */
export interface CollectEvent {
  type: PlayerEventType;
  /** Milliseconds since the epoch, taken when the event happened. */
  t: number;
  /** Position in the video, seconds. */
  video_time: number;
  [field: string]: unknown;
}

/** Body of `POST {events_url}/v1/collect` (docs/api.md: the player's own design). */
export interface CollectBatch {
  workspace_code: string;
  video_code: string;
  session_id: string;
  device_id: string;
  /** The batch's number in its session: a batch sent again is written once. */
  seq?: number;
  events: CollectEvent[];
}

/** Values of an event's `properties`: at most 20 keys of 1 to 40 characters, strings of at most 100 characters. */
export type EventProperties = Record<string, string | number | boolean>;

/**
 * Body of `POST {events_url}/v1/track`: a custom event from the page (no token;
 * the workspace travels by code, raw contact data is hashed in the page first).
 */
export interface TrackBody {
  workspace_code: string;
  /** Lowercased, reduced to [a-z0-9_-] and cut to 64 characters on arrival. */
  event: string;
  session_id?: string;
  device_id?: string;
  profile_id?: string;
  email_sha256?: string;
  email_md5?: string;
  phone_sha256?: string;
  phone_md5?: string;
  external_id?: string;
  /** Plus or minus 1,000,000,000. */
  value?: number;
  /** A repeat within 24 hours collapses into the first. */
  event_id?: string;
  properties?: EventProperties;
  video_code?: string;
}

/** An event name as stored (docs/api.md "Custom event"): lowercased, reduced to [a-z0-9_-], at most 64 characters. */
export function normaliseEventName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, "")
    .slice(0, 64);
}
