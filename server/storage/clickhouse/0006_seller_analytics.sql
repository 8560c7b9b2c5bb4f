-- True plays, impressions and what a seller breaks results down by, kept per session in
-- `analytics_session_slots` (server/api/analytics/definitions.ts says what each means).
--
-- The player now reports `load` (it was shown on a page: an impression), `autoplay` (a
-- muted autoplay start, which is not a play) and `unmute` (the viewer unmuted an autoplay:
-- an intentional start, so a play). `played` becomes "a `play` or an `unmute`": rows
-- written before keep their meaning, since older players sent only `play`, which still
-- counts. The new columns read as 0 / empty for rows written before this migration (no
-- part is rewritten); the raw events keep everything, so nothing is lost.
--
-- Per session: whether it loaded, autoplayed, unmuted and submitted the lead form; the
-- CTA cards it clicked (a bit per card index below 64); its longest startup time (ms); stalled time (ms); player errors; and
-- the dimensions of the breakdowns, taken from its `load` row (older players, which send
-- no `load`, from their `play` rows): the landing referrer host and utm_* the player
-- sends, and device, browser, OS and country the events host derives from the request
-- (no IP is stored). Strings merge by max, so a session's empty value gives way to a set one.
ALTER TABLE analytics_session_slots
  ADD COLUMN IF NOT EXISTS loaded        SimpleAggregateFunction(max, UInt8),
  ADD COLUMN IF NOT EXISTS autoplayed    SimpleAggregateFunction(max, UInt8),
  ADD COLUMN IF NOT EXISTS unmuted       SimpleAggregateFunction(max, UInt8),
  ADD COLUMN IF NOT EXISTS lead          SimpleAggregateFunction(max, UInt8),
  ADD COLUMN IF NOT EXISTS cta_cards     SimpleAggregateFunction(groupBitOr, UInt64),
  ADD COLUMN IF NOT EXISTS startup_ms    SimpleAggregateFunction(max, Float64),
  ADD COLUMN IF NOT EXISTS stall_ms      SimpleAggregateFunction(sum, Float64),
  ADD COLUMN IF NOT EXISTS errors        SimpleAggregateFunction(sum, UInt64),
  ADD COLUMN IF NOT EXISTS referrer_host SimpleAggregateFunction(max, String),
  ADD COLUMN IF NOT EXISTS utm_source    SimpleAggregateFunction(max, String),
  ADD COLUMN IF NOT EXISTS utm_medium    SimpleAggregateFunction(max, String),
  ADD COLUMN IF NOT EXISTS utm_campaign  SimpleAggregateFunction(max, String),
  ADD COLUMN IF NOT EXISTS device        SimpleAggregateFunction(max, String),
  ADD COLUMN IF NOT EXISTS browser       SimpleAggregateFunction(max, String),
  ADD COLUMN IF NOT EXISTS os            SimpleAggregateFunction(max, String),
  ADD COLUMN IF NOT EXISTS country       SimpleAggregateFunction(max, String);

-- One atomic change of the view's query: no insert is missed or counted twice meanwhile.
-- The mask columns of 0005 stay out of the list, so their DEFAULTs fill them as before.
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
  maxIf(properties['country'], event_type IN ('load', 'play', 'autoplay')) AS country
FROM player_events
WHERE event_type IN ('load', 'play', 'autoplay', 'unmute', 'ended', 'milestone', 'watched', 'heartbeat', 'lead_form_submitted', 'cta_click', 'startup',
  'rebuffer', 'error')
GROUP BY workspace_id, video_id, slot, session_hash;

-- Sales, one compact row per conversion row, so the overview, the breakdowns and the
-- buyers' retention read a few columns of a small table instead of the `properties` of
-- every event of a video. Conversions are written to `sale_events` (ENGINE = Null),
-- which feeds `events` (as before) and this table; custom and player events pay nothing
-- for it. Rows of one sale (a browser row, then its verified postback) share `sale_key`
-- (the ledger's dedup key) and the reads merge them, the verified one winning, so a row
-- written twice changes nothing either. Sales stored before this migration are copied.
CREATE TABLE IF NOT EXISTS analytics_sales (
  workspace_id UInt64,
  video_id     UInt64,
  created_at   DateTime64(3, 'UTC'),
  sale_key     String,
  session_hash UInt64,                 -- cityHash64(session_code), as in analytics_session_slots; 0 without a session
  event_name   LowCardinality(String),
  verified     UInt8,
  test         UInt8,
  currency     LowCardinality(String),
  amount       Float64
) ENGINE = MergeTree
PARTITION BY toYYYYMM(created_at)
ORDER BY (workspace_id, video_id, created_at);

CREATE TABLE IF NOT EXISTS sale_events AS events ENGINE = Null;

CREATE MATERIALIZED VIEW IF NOT EXISTS sale_events_to_events TO events AS
SELECT * FROM sale_events;

CREATE MATERIALIZED VIEW IF NOT EXISTS sale_events_to_sales TO analytics_sales AS
SELECT workspace_id, video_id, created_at,
  if(event_id = '', concat('#', toString(generateUUIDv4())), event_id) AS sale_key,
  if(session_code = '', 0, cityHash64(session_code)) AS session_hash,
  if(event = '', 'conversion', event) AS event_name,
  NOT (properties['verified'] = '0' OR properties['source'] = 'browser') AS verified,
  properties['is_test'] IN ('true', '1') AS test,
  upper(properties['currency']) AS currency,
  ifNull(value, 0) AS amount
FROM sale_events
WHERE event_type = 'conversion';

INSERT INTO analytics_sales
SELECT workspace_id, video_id, created_at,
  if(event_id = '', concat('#', toString(generateUUIDv4())), event_id),
  if(session_code = '', 0, cityHash64(session_code)),
  if(event = '', 'conversion', event),
  NOT (properties['verified'] = '0' OR properties['source'] = 'browser'),
  properties['is_test'] IN ('true', '1'),
  upper(properties['currency']),
  ifNull(value, 0)
FROM events
WHERE event_type = 'conversion'
  -- Safe to run again (a second process, a resumed upgrade): a sale already here, copied
  -- before or written since by the view above, is not copied twice.
  AND (workspace_id, video_id, created_at, if(session_code = '', 0, cityHash64(session_code)), if(event = '', 'conversion', event), ifNull(value, 0))
    NOT IN (SELECT workspace_id, video_id, created_at, session_hash, event_name, amount FROM analytics_sales);
