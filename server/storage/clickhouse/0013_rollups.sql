-- Reads whose cost follows hours, not sessions (README "How fresh, how exact").
--
-- 1. The duration facts of retention's step 1 per video and 15-minute slot, kept as slot
--    rows arrive: a read of thirty days merges at most 2,880 rows per video, however many
--    sessions they hold. Only maxima and minima, so a slot written twice, or copied below
--    and written again by the view, changes nothing.
CREATE TABLE IF NOT EXISTS analytics_video_slots (
  workspace_id        UInt64,
  video_id            UInt64,
  slot                DateTime('UTC'),
  duration_s          SimpleAggregateFunction(max, Float64),
  max_end_s           SimpleAggregateFunction(max, Float64),
  mask_min_duration_s SimpleAggregateFunction(min, Float64),
  mask_max_duration_s SimpleAggregateFunction(max, Float64)
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(slot)
ORDER BY (workspace_id, video_id, slot);

CREATE MATERIALIZED VIEW IF NOT EXISTS analytics_video_slots_from_slots TO analytics_video_slots AS
SELECT workspace_id, video_id, slot, max(duration_s) AS duration_s, max(max_end_s) AS max_end_s,
  min(mask_min_duration_s) AS mask_min_duration_s, max(mask_max_duration_s) AS mask_max_duration_s
FROM analytics_session_slots
GROUP BY workspace_id, video_id, slot;

-- Slots written before this migration (safe to run again: maxima and minima).
INSERT INTO analytics_video_slots
SELECT workspace_id, video_id, slot, max(duration_s), max(max_end_s), min(mask_min_duration_s), max(mask_max_duration_s)
FROM analytics_session_slots
GROUP BY workspace_id, video_id, slot;

-- 2. Retention per video and hour of session start, sealed (server/api/analytics/
--    rollups.ts) once the hour is over by SEAL_LAG: the played sessions that started in it
--    and, per 1 % bucket, how many of them watched it (their stored 100-bucket masks). A
--    seal writes one row per video and hour under a new `generation`; reads take each
--    hour's latest, so sealing again (late rows, a second process) replaces, never adds.
CREATE TABLE IF NOT EXISTS analytics_retention_hours (
  workspace_id UInt64,
  video_id     UInt64,
  hour         DateTime('UTC'),
  generation   UInt64,
  sealed_at    DateTime64(3, 'UTC'),
  sessions     UInt64,
  buckets      Array(UInt64)
) ENGINE = MergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (workspace_id, video_id, hour, generation);

-- Hours every seal has covered: reads take rollups below the latest `sealed_through`.
CREATE TABLE IF NOT EXISTS analytics_rollup_marks (
  sealed_through DateTime('UTC'),
  run_started    DateTime64(3, 'UTC')
) ENGINE = MergeTree
ORDER BY sealed_through;

-- The hours of session start each write touched, so a seal finds rows that arrived for an
-- hour it had sealed (a session still watching, a batch replayed after an outage).
CREATE TABLE IF NOT EXISTS analytics_rollup_dirty (
  workspace_id UInt64,
  video_id     UInt64,
  hour         DateTime('UTC'),
  changed_at   DateTime64(3, 'UTC')
) ENGINE = MergeTree
ORDER BY changed_at
TTL toDateTime(changed_at) + INTERVAL 7 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS analytics_rollup_dirty_from_sessions TO analytics_rollup_dirty AS
SELECT workspace_id, video_id, toStartOfHour(started) AS hour, now64(3) AS changed_at
FROM analytics_sessions
GROUP BY workspace_id, video_id, hour;
