-- True plays, impressions and what a seller breaks results down by, kept per session in
-- `analytics_session_slots` (server/modules/analytics/definitions.ts says what each means).
--
-- The player now reports `load` (it was shown on a page: an impression), `autoplay` (a
-- muted autoplay start, which is not a play) and `unmute` (the viewer unmuted an autoplay:
-- an intentional start, so a play). `played` becomes "a `play` or an `unmute`": rows
-- written before keep their meaning, since older players sent only `play`, which still
-- counts. The new columns read as 0 / empty for rows written before this migration (no
-- part is rewritten); the raw events keep everything, so nothing is lost.
--
-- Per session: whether it loaded, autoplayed, unmuted and submitted the lead form; CTA
-- clicks per card index; every startup time (ms); stalled time (ms); player errors; and
-- the dimensions of the breakdowns, taken from its `load` row (older players, which send
-- no `load`, from their `play` rows): the landing referrer host and utm_* the player
-- sends, and device, browser, OS and country the events host derives from the request
-- (no IP is stored). Strings merge by max, so a session's empty value gives way to a set one.
ALTER TABLE analytics_session_slots
  ADD COLUMN IF NOT EXISTS loaded        SimpleAggregateFunction(max, UInt8),
  ADD COLUMN IF NOT EXISTS autoplayed    SimpleAggregateFunction(max, UInt8),
  ADD COLUMN IF NOT EXISTS unmuted       SimpleAggregateFunction(max, UInt8),
  ADD COLUMN IF NOT EXISTS lead          SimpleAggregateFunction(max, UInt8),
  ADD COLUMN IF NOT EXISTS cta_clicks    SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)),
  ADD COLUMN IF NOT EXISTS startup_ms    SimpleAggregateFunction(groupArrayArray, Array(Float64)),
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
  sumMapIf(map(toUInt16OrZero(properties['card_index']), toUInt64(1)), event_type = 'cta_click') AS cta_clicks,
  groupArrayIf(ifNull(value, 0), event_type = 'startup') AS startup_ms,
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
