-- Sessions by the slot they started in, one row each, so the seller metrics (server/
-- modules/analytics/metrics.ts) read a session's merged facts instead of merging its
-- slot rows at every read: `analytics_sessions`, read with FINAL, which costs nothing on
-- merged parts. definitions.ts "Seller overview": a session counts, whole, in the
-- window it started in.
--
-- A session's start is the events host's: when it first saw the session code
-- (viewer_sessions.created_at), sent with every row of the session as `session_start`,
-- so all rows of a session share it and merge into one. Rows written without it (other
-- writers) start at their own time. `events` keeps it too; the `Null` tables that feed
-- `events` with `SELECT *` must list the same columns.
ALTER TABLE events ADD COLUMN IF NOT EXISTS session_start DateTime64(3, 'UTC') DEFAULT created_at;
ALTER TABLE player_events ADD COLUMN IF NOT EXISTS session_start DateTime64(3, 'UTC') DEFAULT created_at;
ALTER TABLE sale_events ADD COLUMN IF NOT EXISTS session_start DateTime64(3, 'UTC') DEFAULT created_at;

-- The slot rows carry the start of their session (its 15-minute slot) to the view below.
ALTER TABLE analytics_session_slots ADD COLUMN IF NOT EXISTS session_start SimpleAggregateFunction(min, DateTime('UTC')) DEFAULT slot;

-- One atomic change of each view's query (0006 and 0008 otherwise as they were).
ALTER TABLE analytics_session_slots_from_player_events MODIFY QUERY
SELECT
  workspace_id,
  video_id,
  toStartOfFifteenMinutes(created_at) AS slot,
  cityHash64(if(session_code = '', concat('#', event_id), session_code)) AS session_hash,
  max(event_type IN ('play', 'unmute')) AS played,
  max(event_type = 'ended' OR (event_type = 'milestone' AND toFloat64OrZero(properties['percent']) >= 100)) AS completed,
  sumIf(watch_seconds, event_type IN ('watched', 'heartbeat')) AS watched_s,
  maxIf(cityHash64(device_id), device_id != '') AS device_hash,
  maxIf(toFloat64OrZero(properties['duration_s']), event_type IN ('watched', 'heartbeat')) AS duration_s,
  maxIf(video_time + watch_seconds, event_type IN ('watched', 'heartbeat')) AS max_end_s,
  groupArrayIf((video_time, video_time + watch_seconds), event_type IN ('watched', 'heartbeat') AND watch_seconds > 0) AS ranges,
  max(event_type = 'load') AS loaded,
  max(event_type = 'autoplay') AS autoplayed,
  max(event_type = 'unmute') AS unmuted,
  max(event_type = 'lead_form_submitted') AS lead,
  groupBitOrIf(bitShiftLeft(toUInt64(1), toUInt8OrZero(properties['card_index'])), event_type = 'cta_click' AND toUInt16OrZero(properties['card_index']) < 64) AS cta_cards,
  maxIf(ifNull(value, 0), event_type = 'startup') AS startup_ms,
  sumIf(ifNull(value, 0), event_type = 'rebuffer') AS stall_ms,
  countIf(event_type = 'error') AS errors,
  maxIf(properties['referrer_host'], event_type = 'load') AS referrer_host,
  maxIf(properties['utm_source'], event_type = 'load') AS utm_source,
  maxIf(properties['utm_medium'], event_type = 'load') AS utm_medium,
  maxIf(properties['utm_campaign'], event_type = 'load') AS utm_campaign,
  maxIf(properties['device'], event_type IN ('load', 'play', 'autoplay')) AS device,
  maxIf(properties['browser'], event_type IN ('load', 'play', 'autoplay')) AS browser,
  maxIf(properties['os'], event_type IN ('load', 'play', 'autoplay')) AS os,
  maxIf(properties['country'], event_type IN ('load', 'play', 'autoplay')) AS country,
  min(toStartOfFifteenMinutes(session_start)) AS session_start
FROM player_events
WHERE event_type IN ('load', 'play', 'autoplay', 'unmute', 'ended', 'milestone', 'watched', 'heartbeat', 'lead_form_submitted', 'cta_click', 'startup',
  'rebuffer', 'error')
GROUP BY workspace_id, video_id, slot, session_hash;

ALTER TABLE analytics_session_slots_split_tests MODIFY QUERY
SELECT
  workspace_id,
  video_id,
  toStartOfFifteenMinutes(created_at) AS slot,
  cityHash64(if(session_code = '', concat('#', event_id), session_code)) AS session_hash,
  max(concat(properties['split_test_id'], ':', properties['split_test_variation_id'])) AS split_test,
  min(toStartOfFifteenMinutes(session_start)) AS session_start
FROM player_events
WHERE event_type IN ('load', 'play', 'autoplay') AND properties['split_test_id'] != ''
GROUP BY workspace_id, video_id, slot, session_hash;

-- What the seller metrics read of a session (types as in analytics_session_slots).
CREATE TABLE IF NOT EXISTS analytics_sessions (
  workspace_id  UInt64,
  video_id      UInt64,
  started       DateTime('UTC'),
  session_hash  UInt64,
  flags         SimpleAggregateFunction(groupBitOr, UInt8),
  cta_cards     SimpleAggregateFunction(groupBitOr, UInt64),
  watched_s     SimpleAggregateFunction(sum, Float64),
  device_hash   SimpleAggregateFunction(max, UInt64),
  startup_ms    SimpleAggregateFunction(max, Float64),
  stall_ms      SimpleAggregateFunction(sum, Float64),
  errors        SimpleAggregateFunction(sum, UInt64),
  mask100       SimpleAggregateFunction(groupBitOr, UInt128),
  ranges        SimpleAggregateFunction(groupArrayArray, Array(Tuple(Float64, Float64))),
  source        SimpleAggregateFunction(max, String),
  referrer_host SimpleAggregateFunction(max, String),
  utm_source    SimpleAggregateFunction(max, String),
  utm_medium    SimpleAggregateFunction(max, String),
  utm_campaign  SimpleAggregateFunction(max, String),
  device        SimpleAggregateFunction(max, String),
  browser       SimpleAggregateFunction(max, String),
  os            SimpleAggregateFunction(max, String),
  country       SimpleAggregateFunction(max, String),
  split_test    SimpleAggregateFunction(max, String)
) ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(started)
ORDER BY (workspace_id, video_id, started, session_hash);

-- Sessions written before this migration start at their first slot. Applied at start-up,
-- before the events host takes events (a row written between this and the view below
-- would be missed). The columns are named, so running it again after later migrations
-- added columns (0013) still fits.
INSERT INTO analytics_sessions (workspace_id, video_id, started, session_hash, flags, cta_cards, watched_s, device_hash, startup_ms, stall_ms,
  errors, mask100, ranges, source, referrer_host, utm_source, utm_medium, utm_campaign, device, browser, os, country, split_test)
SELECT workspace_id, video_id, min(slot), session_hash, groupBitOr(flags), groupBitOr(cta_cards), sum(watched_s), max(device_hash),
  max(startup_ms), sum(stall_ms), sum(errors), groupBitOr(mask100), groupArrayArray(ranges), max(source), max(referrer_host),
  max(utm_source), max(utm_medium), max(utm_campaign), max(device), max(browser), max(os), max(country), max(split_test)
FROM analytics_session_slots
-- Safe to run again (a second process, a resumed upgrade): a session already here, copied
-- before or written since by the view below, is not copied twice.
WHERE (workspace_id, video_id, session_hash) NOT IN (SELECT workspace_id, video_id, session_hash FROM analytics_sessions)
GROUP BY workspace_id, video_id, session_hash;

-- Every slot row written from now on, moved to its session's start.
CREATE MATERIALIZED VIEW IF NOT EXISTS analytics_sessions_from_slots TO analytics_sessions AS
SELECT workspace_id, video_id, session_start AS started, session_hash, flags, cta_cards, watched_s, device_hash, startup_ms, stall_ms, errors,
  mask100, ranges, source, referrer_host, utm_source, utm_medium, utm_campaign, device, browser, os, country, split_test
FROM analytics_session_slots;
