/** Wire schemas of the events host: /v1/event, /v1/track, /v1/collect. */
import { t } from "elysia";
import { MAX_JSON_BODY_BYTES } from "../../http/request-limits.ts";
import { Int, JsonValue, MAX_JSON_DEPTH, Num, oneOf, PropertyMap, Text } from "../../http/schemas.ts";
import { PLAYER_ERROR_TYPES, PLAYER_EVENT_TYPES } from "../../../contract/events.ts";
import type * as wire from "../../../contract/events.ts";
import type { Same } from "../../lib/same.ts";

const Id = (what: string) => Text({ minLength: 1, maxLength: 100, description: what });
const Sha256 = Text({ maxLength: 64, pattern: "^[0-9a-fA-F]{64}$", description: "SHA-256 of lower(trim(email)) or of the E.164 phone, 64 hex." });
const Md5 = Text({ maxLength: 32, pattern: "^[0-9a-fA-F]{32}$", description: "MD5 of the same, 32 hex." });

/** docs/api.md "Limits": 20 keys, key at most 40 characters, value at most 100; values are strings, numbers or booleans. */
export const Properties = PropertyMap();

const common = {
  event: Text({ maxLength: 255, description: "Event name; lowercased, reduced to [a-z0-9_-], truncated to 64." }),
  session_id: t.Optional(Id("Viewer session (best match).")),
  device_id: t.Optional(Id("Device id (fallback).")),
  profile_id: t.Optional(Id("Profile id (fallback).")),
  email_sha256: t.Optional(Sha256),
  email_md5: t.Optional(Md5),
  phone_sha256: t.Optional(Sha256),
  phone_md5: t.Optional(Md5),
  external_id: t.Optional(Text({ minLength: 1, maxLength: 255 })),
  value: t.Optional(Num(-1_000_000_000, 1_000_000_000, { description: "Plus or minus 1,000,000,000." })),
  event_id: t.Optional(Text({ minLength: 1, maxLength: 255, description: "Idempotency key; a repeat within 24 h collapses into the first." })),
  properties: t.Optional(Properties),
  video_code: t.Optional(Text({ maxLength: 100, description: "With a raw `email`, upserts a lead for this video." })),
};

export const CustomEventBody = t.Object(
  {
    ...common,
    email: t.Optional(Text({ maxLength: 255, description: "Raw email: hashed on arrival, stored raw only as a lead (with video_code)." })),
    phone: t.Optional(Text({ maxLength: 64, description: "Raw phone: E.164 (`+` or leading `00`), hashed on arrival; otherwise dropped." })),
  },
  { additionalProperties: false },
);
export type CustomEventBody = typeof CustomEventBody.static;

/** The browser path: no token, the workspace travels by code; raw contact data is hashed in the page. */
export const TrackBody = t.Object({ workspace_code: Text({ minLength: 1, maxLength: 100 }), ...common }, { additionalProperties: false });
export type TrackBody = typeof TrackBody.static;
// The schema and the browser's type (contract/events.ts) describe one wire shape: each must accept the other.
const trackBodyIsTheContract: Same<TrackBody, wire.TrackBody> = true;
const collectBodyIsTheContract: Same<
  Pick<CollectBody, "workspace_code" | "video_code" | "session_id">,
  Pick<wire.CollectBatch, "workspace_code" | "video_code" | "session_id">
> = true;
void trackBodyIsTheContract;
void collectBodyIsTheContract;

export const CustomEventReply = t.Object({
  ok: t.Boolean(),
  event: t.String(),
  event_id: t.Nullable(t.String()),
  attributed: t.Boolean(),
  matched_by: t.Nullable(t.String()),
});
export type CustomEventReply = typeof CustomEventReply.static;

export const EventsError = t.Object({ error: t.String(), message: t.String() }, { additionalProperties: true });

const Seconds = t.Number({ minimum: 0, maximum: 604_800 });
const Range = t.Object({ from_s: Seconds, to_s: Seconds });

/**
 * One player event. Fields beyond these (scalars, e.g. `card_index`, `url`)
 * are kept as string properties, truncated to 100 characters, at most 20.
 */
export const PlayerEvent = t.Object(
  {
    type: oneOf(PLAYER_EVENT_TYPES, { description: "What happened in the player." }),
    // Any number: it is clamped to the last hour before it is stored.
    t: t.Optional(
      Num(-Number.MAX_VALUE, Number.MAX_VALUE, { description: "When it happened, ms since the epoch (clamped to the last hour; default: arrival)." }),
    ),
    video_time: t.Optional(Seconds),
    from_s: t.Optional(Seconds),
    to_s: t.Optional(Seconds),
    ranges: t.Optional(t.Array(Range, { maxItems: 50, description: "heartbeat: several watched stretches at once." })),
    from: t.Optional(Seconds),
    to: t.Optional(Seconds),
    percent: t.Optional(t.Union([t.Literal(25), t.Literal(50), t.Literal(75), t.Literal(100)], { description: "milestone: 25, 50, 75 or 100." })),
    ms: t.Optional(t.Number({ minimum: 0, maximum: 3_600_000, description: "startup and rebuffer: duration in ms." })),
    email: t.Optional(Text({ maxLength: 255, description: "lead_form_submitted: the raw email; upserts a lead, never stored in events." })),
    phone: t.Optional(
      Text({ maxLength: 64, description: "lead_form_submitted: a raw phone (E.164, `+` or leading `00`); hashed on arrival, never stored raw." }),
    ),
    error_type: t.Optional(oneOf(PLAYER_ERROR_TYPES, { description: "error: the kind of failure (hls.js's ErrorTypes); stored as a property." })),
    details: t.Optional(Text({ maxLength: 100, description: "error: a short code, e.g. `manifestLoadError` (hls.js's details); stored as a property." })),
    fatal: t.Optional(t.Boolean({ description: "error: playback of this source stopped; stored as a property." })),
    // Cut to 100 characters when stored, so only the body's own bound limits what an older player sends.
    message: t.Optional(
      Text({
        maxLength: MAX_JSON_BODY_BYTES,
        description: "error, from players older than `error_type`: free text, stored as a property (100 characters).",
      }),
    ),
    properties: t.Optional(Properties),
  },
  // Extra fields are kept as properties when scalar; any of them is checked like a JSON body's contents.
  { additionalProperties: JsonValue({ maxDepth: MAX_JSON_DEPTH }) },
);
export type PlayerEvent = typeof PlayerEvent.static & Record<string, unknown>;

export const CollectBody = t.Object(
  {
    workspace_code: Text({ minLength: 1, maxLength: 100 }),
    video_code: Text({ minLength: 1, maxLength: 100 }),
    session_id: Id("The player's session (or the one joined through `fl_sid`)."),
    device_id: t.Optional(Id("The player's device id (first-party storage).")),
    profile_id: t.Optional(Id("A profile id the page set on the player.")),
    seq: t.Optional(
      Int(1, Number.MAX_SAFE_INTEGER, {
        description: "The batch's number in its session (1, 2, ...): a batch sent again with a number already taken is not written twice.",
      }),
    ),
    events: t.Array(PlayerEvent, { minItems: 1, maxItems: 200 }),
  },
  { additionalProperties: false },
);
export type CollectBody = typeof CollectBody.static;
