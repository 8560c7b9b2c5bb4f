/** Wire schemas of docs/api.md "Exports" and the export's fixed sets. */
import { t } from "elysia";
import { DateOnly, Id, oneOf, Text } from "../../http/schemas.ts";
import { DIMENSION_NAMES } from "../analytics/metrics.ts";

/** docs/api.md's four types, and (beyond it) the seller overview, a breakdown and the leads (docs/api.md "Viewers"). */
export const EXPORT_TYPES = ["events", "summary", "retention", "conversions", "overview", "breakdown", "leads"] as const;
export type ExportType = (typeof EXPORT_TYPES)[number];
export const EXPORT_FORMATS = ["csv", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** docs/api.md "Export" states: pending and processing both read as in progress. */
export const ExportStatus = { pending: "pending", processing: "processing", ready: "ready", failed: "failed" } as const;
export type ExportStatus = (typeof ExportStatus)[keyof typeof ExportStatus];

/** docs/api.md: `flex_` + lowercase hex. */
export const EXPORT_ID_PREFIX = "flex_";
/** docs/api.md leaves retention open: an export (and its file) lives 7 days from creation, then reads 404 EXPORT_NOT_FOUND. */
export const EXPORT_RETENTION_DAYS = 7;
/** docs/api.md "Limits": 1 to 50 videos per export. */
export const MAX_EXPORT_VIDEOS = 50;

/** The seller metrics of one row of an overview or breakdown export, then its currency's figures. */
const SELLER_COLUMNS = [
  "impressions",
  "plays",
  "play_rate",
  "autoplays",
  "unmutes",
  "unmute_rate",
  "unique_viewers",
  "avg_watch_time_s",
  "avg_percent_watched",
  "cta_clicks",
  "leads",
  "orders",
  "conversion_rate",
  "startup_time_ms_p50",
  "startup_time_ms_p95",
  "rebuffer_ratio",
  "errors",
  "currency",
  "currency_orders",
  "revenue",
  "aov",
  "rpv",
  "epc",
  "ad_spend",
  "roas",
] as const;

/**
 * Columns of each export type: the fields of the matching analytics read (docs/api.md),
 * flattened to one row per event, per video (summary), per video and bucket
 * (retention, 100 buckets) or per video and event name (conversions). The seller
 * overview has one row per video and currency, a breakdown one per video, value and
 * currency (`cta_clicks` adds up, over the cards, the sessions that clicked each; a row without sales has empty
 * currency columns). The leads have one row per video and identified viewer, `watch_percent` the furthest
 * point of the video they reached. Windows are UTC days.
 */
export const EXPORT_COLUMNS = {
  events: ["video_id", "event_type", "event", "session_code", "watch_seconds", "video_time", "created_at", "ip_hash"],
  summary: ["video_id", "video_code", "from", "to", "tz", "plays", "unique_plays", "completion_count", "completion_rate", "avg_watch_time_s", "bounce_count"],
  retention: ["video_id", "bucket_pct", "watch_pct"],
  conversions: ["video_id", "from", "to", "event_name", "count", "total_revenue"],
  overview: ["video_id", "video_code", "from", "to", "tz", ...SELLER_COLUMNS],
  breakdown: ["video_id", "video_code", "from", "to", "tz", "by", "value", "other", ...SELLER_COLUMNS],
  leads: [
    "video_id",
    "video_code",
    "viewer_id",
    "email",
    "external_id",
    "first_seen_at",
    "last_seen_at",
    "sessions",
    "watch_time_s",
    "watch_percent",
    "plays",
    "leads",
    "orders",
  ],
} as const satisfies Record<ExportType, readonly string[]>;

export const CreateExportBody = t.Object({
  video_ids: t.Array(Id({ error: "Each video id must be a positive integer." }), {
    minItems: 1,
    maxItems: MAX_EXPORT_VIDEOS,
    error: `The video_ids must be a list of 1 to ${MAX_EXPORT_VIDEOS} integer video ids.`,
  }),
  from: DateOnly({ error: "The from must be a date in YYYY-MM-DD format from 1970-01-01 to 2100-12-31.", description: "ISO date (UTC day), required." }),
  to: DateOnly({
    error: "The to must be a date in YYYY-MM-DD format from 1970-01-01 to 2100-12-31.",
    description: "ISO date (UTC day) on or after `from`, required.",
  }),
  format: oneOf(EXPORT_FORMATS, { error: "The format must be csv or json." }),
  type: oneOf(EXPORT_TYPES, { error: `The type must be one of ${EXPORT_TYPES.join(", ")}.` }),
  by: t.Optional(
    oneOf(DIMENSION_NAMES, {
      error: `The by must be one of ${DIMENSION_NAMES.join(", ")}.`,
      description: "Beyond the core interface: with type `breakdown` (required there), what the rows break down by.",
    }),
  ),
});
export type CreateExportBody = typeof CreateExportBody.static;

export const ExportCreated = t.Object({ export_id: t.String(), status: t.Literal("pending") });

export const ExportRead = t.Object({
  export_id: t.String(),
  status: t.UnionEnum(["pending", "processing", "ready", "failed"], { description: "pending and processing both mean in progress." }),
  download_url: t.Nullable(t.String()),
});

export const ExportParams = t.Object({ export: Text({ maxLength: 1024, description: "The export_id (flex_...)" }) });
