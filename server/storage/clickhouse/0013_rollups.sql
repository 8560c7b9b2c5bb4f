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

-- 2. Whether a session completed, kept with its other facts (analytics_sessions,
--    0011_session_start.sql), so the summary can count sessions by start as the other
--    reads do. One atomic change of the view's query (0011's otherwise as it was).
ALTER TABLE analytics_sessions ADD COLUMN IF NOT EXISTS completed SimpleAggregateFunction(max, UInt8);

ALTER TABLE analytics_sessions_from_slots MODIFY QUERY
SELECT workspace_id, video_id, session_start AS started, session_hash, flags, cta_cards, watched_s, device_hash, startup_ms, stall_ms, errors,
  mask100, ranges, source, referrer_host, utm_source, utm_medium, utm_campaign, device, browser, os, country, split_test, completed
FROM analytics_session_slots;

-- Sessions that completed before this migration: a row holding only that, which merges
-- into the session's row (every other column is empty, which its merge ignores). Safe to
-- run again: a maximum.
INSERT INTO analytics_sessions (workspace_id, video_id, started, session_hash, completed)
SELECT workspace_id, video_id, min(session_start), session_hash, 1
FROM analytics_session_slots
GROUP BY workspace_id, video_id, session_hash
HAVING max(completed) = 1;

-- 3. The played sessions of each video and hour of session start, sealed (server/api/
--    analytics/rollups.ts) once the hour is over by SEAL_LAG, and of each whole UTC day
--    once its hours are: how many, their distinct viewers (a HyperLogLog state: README
--    "How fresh, how exact"), completions, watch time and bounces for the summary, and
--    per 1 % bucket how many watched it (their stored 100-bucket masks) for retention. A
--    seal writes one row per video and period under a new `generation`; reads take each
--    period's latest, so sealing again (late rows, a second process) replaces, never adds.
CREATE TABLE IF NOT EXISTS analytics_rollups (
  workspace_id UInt64,
  video_id     UInt64,
  grain        LowCardinality(String),   -- 'hour' or 'day'
  period       DateTime('UTC'),          -- its start
  generation   UInt64,
  sealed_at    DateTime64(3, 'UTC'),
  plays        UInt64,
  viewers      AggregateFunction(uniqCombined64(17), Tuple(UInt8, UInt64)),
  completions  UInt64,
  watch_s      Float64,
  bounces      UInt64,
  buckets      Array(UInt64)
) ENGINE = MergeTree
PARTITION BY toYYYYMM(period)
ORDER BY (workspace_id, video_id, grain, period, generation);

-- Hours every seal has covered: reads take rollups below the latest `sealed_through`.
-- Marks expire after 30 days; a deployment whose workers were stopped longer seals its
-- history again from the start, which changes no figure.
CREATE TABLE IF NOT EXISTS analytics_rollup_marks (
  sealed_through DateTime('UTC'),
  run_started    DateTime64(3, 'UTC')
) ENGINE = MergeTree
ORDER BY sealed_through
TTL toDateTime(run_started) + INTERVAL 30 DAY;

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
