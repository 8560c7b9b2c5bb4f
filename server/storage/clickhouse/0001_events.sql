-- Every player, custom and conversion event, one row each. Ordered for the
-- per-video analytics reads (workspace, video, time).
CREATE TABLE IF NOT EXISTS events (
  workspace_id  UInt64,
  video_id      UInt64,
  video_code    LowCardinality(String),
  event_type    LowCardinality(String),
  event         LowCardinality(String),
  event_id      String,
  session_code  String,
  device_id     String,
  watch_seconds Float64,
  video_time    Float64,
  value         Nullable(Float64),
  properties    Map(String, String),
  created_at    DateTime64(3, 'UTC')
) ENGINE = MergeTree
PARTITION BY toYYYYMM(created_at)
ORDER BY (workspace_id, video_id, created_at);

-- Ingest counters per minute: accepted, deduplicated, rejected by reason.
CREATE TABLE IF NOT EXISTS ingest_counters (
  minute  DateTime('UTC'),
  path    LowCardinality(String),
  outcome LowCardinality(String),
  reason  LowCardinality(String),
  count   UInt64
) ENGINE = SummingMergeTree
ORDER BY (minute, path, outcome, reason);
