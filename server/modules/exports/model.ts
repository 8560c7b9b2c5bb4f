/** Wire schemas of SPEC.md "Exports" and the export's fixed sets. */
import { t } from "elysia";
import { DateOnly, Id, oneOf, Text } from "../../http/schemas.ts";

export const EXPORT_TYPES = ["events", "summary", "retention", "conversions"] as const;
export type ExportType = (typeof EXPORT_TYPES)[number];
export const EXPORT_FORMATS = ["csv", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** SPEC.md "Export" states: pending and processing both read as in progress. */
export const ExportStatus = { pending: "pending", processing: "processing", ready: "ready", failed: "failed" } as const;
export type ExportStatus = (typeof ExportStatus)[keyof typeof ExportStatus];

/** CONTRACT.md: `flex_` + lowercase hex. */
export const EXPORT_ID_PREFIX = "flex_";
/** SPEC.md leaves retention open: an export (and its file) lives 7 days from creation, then reads 404 EXPORT_NOT_FOUND. */
export const EXPORT_RETENTION_DAYS = 7;
/** SPEC.md "Limits": 1 to 50 videos per export. */
export const MAX_EXPORT_VIDEOS = 50;

/**
 * Columns of each export type: the fields of the matching analytics read (CONTRACT.md),
 * flattened to one row per event, per video (summary), per video and bucket
 * (retention, 100 buckets) or per video and event name (conversions). Windows are UTC days.
 */
export const EXPORT_COLUMNS = {
  events: ["video_id", "event_type", "event", "session_code", "watch_seconds", "video_time", "created_at", "ip_hash"],
  summary: ["video_id", "video_code", "from", "to", "tz", "plays", "unique_plays", "completion_count", "completion_rate", "avg_watch_time_s", "bounce_count"],
  retention: ["video_id", "bucket_pct", "watch_pct"],
  conversions: ["video_id", "from", "to", "event_name", "count", "total_revenue"],
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
  type: oneOf(EXPORT_TYPES, { error: "The type must be one of events, summary, retention, conversions." }),
});
export type CreateExportBody = typeof CreateExportBody.static;

export const ExportCreated = t.Object({ export_id: t.String(), status: t.Literal("pending") });

export const ExportRead = t.Object({
  export_id: t.String(),
  status: t.UnionEnum(["pending", "processing", "ready", "failed"], { description: "pending and processing both mean in progress." }),
  download_url: t.Nullable(t.String()),
});

export const ExportParams = t.Object({ export: Text({ maxLength: 1024, description: "The export_id (flex_...)" }) });
