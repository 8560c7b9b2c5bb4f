-- Player events arrive in `player_events` (ENGINE = Null: it keeps nothing); one view
-- copies them into `events`, another keeps `analytics_session_slots` (moved here from
-- `events`, see 0003_analytics.sql). Custom events and conversions go straight into
-- `events` and no longer pay for the analytics view, which ClickHouse plans and runs for
-- every inserted block even when its WHERE keeps no row. A column added to `events`
-- later must be added to `player_events` too.
CREATE TABLE IF NOT EXISTS player_events AS events ENGINE = Null;

CREATE MATERIALIZED VIEW IF NOT EXISTS player_events_to_events TO events AS
SELECT * FROM player_events;

-- Same SELECT as analytics_session_slots_mv in 0003_analytics.sql; keep it in step with
-- server/api/analytics/definitions.ts.
CREATE MATERIALIZED VIEW IF NOT EXISTS analytics_session_slots_from_player_events TO analytics_session_slots AS
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
FROM player_events
WHERE event_type IN ('play', 'ended', 'milestone', 'watched', 'heartbeat')
GROUP BY workspace_id, video_id, slot, session_hash;

DROP VIEW IF EXISTS analytics_session_slots_mv;

-- Many small inserts (group commits of tens of milliseconds): merge them in wider steps,
-- rewriting each row fewer times (the default base of 5 made merges about a fifth of
-- the ingest CPU; reads do not need fewer parts than this leaves).
ALTER TABLE events MODIFY SETTING merge_selector_base = 20;
