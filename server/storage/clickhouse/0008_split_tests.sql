-- The split-test variation a session was served, kept with its analytics slots so a
-- split test's report groups sessions by it (server/api/split-tests/report.ts).
-- The events host stamps `properties.split_test_id` and `split_test_variation_id` on
-- every row of a session it assigned to a running test.
--
-- A view of its own rather than a change of the slots view's query: its rows carry only
-- the keys and this column (every other column at its default: 0, empty, the mask of no
-- ranges), so merging them into a session's rows changes nothing else, and the main view
-- stays as the seller analytics keep it. Its WHERE keeps the few rows that start a view.
ALTER TABLE analytics_session_slots
  ADD COLUMN IF NOT EXISTS split_test SimpleAggregateFunction(max, String);  -- '<test id>:<variation id>', '' when none

CREATE MATERIALIZED VIEW IF NOT EXISTS analytics_session_slots_split_tests TO analytics_session_slots AS
SELECT
  workspace_id,
  video_id,
  toStartOfFifteenMinutes(created_at) AS slot,
  cityHash64(if(session_code = '', concat('#', event_id), session_code)) AS session_hash,
  max(concat(properties['split_test_id'], ':', properties['split_test_variation_id'])) AS split_test
FROM player_events
WHERE event_type IN ('load', 'play', 'autoplay') AND properties['split_test_id'] != ''
GROUP BY workspace_id, video_id, slot, session_hash;
