-- Per-session facts in 15-minute slots, kept by a materialized view on `events`, so the
-- summary and retention read one row per session instead of every event
-- (server/api/analytics/definitions.ts says what each fact means). Every real time
-- zone offset is a multiple of 15 minutes, so a window of local days is exactly a range
-- of slots. Rows of one session and slot written in different inserts are merged in the
-- background and by the reads' GROUP BY. Sessions and devices are kept as 64-bit hashes
-- (cityHash64): grouping numbers is much faster than grouping strings, and a collision
-- among the sessions of one video is vanishingly unlikely (about 1 in 10^9 at 200,000).
CREATE TABLE IF NOT EXISTS analytics_session_slots (
  workspace_id UInt64,
  video_id     UInt64,
  slot         DateTime('UTC'),
  session_hash UInt64,
  played       SimpleAggregateFunction(max, UInt8),
  completed    SimpleAggregateFunction(max, UInt8),
  watched_s    SimpleAggregateFunction(sum, Float64),
  device_hash  SimpleAggregateFunction(max, UInt64),   -- 0: no device_id seen
  duration_s   SimpleAggregateFunction(max, Float64),
  max_end_s    SimpleAggregateFunction(max, Float64),
  ranges       SimpleAggregateFunction(groupArrayArray, Array(Tuple(Float64, Float64)))
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(slot)
ORDER BY (workspace_id, video_id, slot, session_hash);

-- Keep the event types and rules in step with definitions.ts (PLAY_EVENT, COMPLETION_*,
-- WATCHED_EVENTS): a session key is the session_code, or '#' + event_id without one.
CREATE MATERIALIZED VIEW IF NOT EXISTS analytics_session_slots_mv TO analytics_session_slots AS
SELECT
  workspace_id,
  video_id,
  toStartOfFifteenMinutes(created_at) AS slot,
  cityHash64(if(session_code = '', concat('#', event_id), session_code)) AS session_hash,
  max(event_type = 'play') AS played,
  max(event_type = 'ended' OR (event_type = 'milestone' AND toFloat64OrZero(properties['percent']) >= 100)) AS completed,
  sumIf(watch_seconds, event_type IN ('watched', 'heartbeat')) AS watched_s,
  maxIf(cityHash64(device_id), device_id != '') AS device_hash,
  maxIf(toFloat64OrZero(properties['duration_s']), event_type IN ('watched', 'heartbeat')) AS duration_s,
  maxIf(video_time + watch_seconds, event_type IN ('watched', 'heartbeat')) AS max_end_s,
  groupArrayIf((video_time, video_time + watch_seconds), event_type IN ('watched', 'heartbeat') AND watch_seconds > 0) AS ranges
FROM events
WHERE event_type IN ('play', 'ended', 'milestone', 'watched', 'heartbeat')
GROUP BY workspace_id, video_id, slot, session_hash;
