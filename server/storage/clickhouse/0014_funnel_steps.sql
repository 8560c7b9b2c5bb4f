-- Funnel steps (docs/api.md "Funnels"): a quiz choice or a CTA card that names
-- `next_video_code` sends it with its `quiz_answered` or `cta_click`, and the player
-- swaps to that video in the same session. One row per step taken, so the funnel
-- report follows a session's path (video -> choice -> video) from these few rows and
-- reads each step's figures from the per-session rows, never from the raw events.
-- `choice` is `quiz:<question_id>:<choice_id>` or `cta:<card_index>`. No backfill:
-- no event carried `next_video_code` before this migration.
CREATE TABLE IF NOT EXISTS funnel_steps (
  workspace_id    UInt64,
  video_id        UInt64,
  session_hash    UInt64,                -- cityHash64(session_code), as in analytics_session_slots
  created_at      DateTime64(3, 'UTC'),
  choice          String,
  next_video_code String
) ENGINE = MergeTree
PARTITION BY toYYYYMM(created_at)
ORDER BY (workspace_id, video_id, created_at);

CREATE MATERIALIZED VIEW IF NOT EXISTS funnel_steps_from_player_events TO funnel_steps AS
SELECT workspace_id, video_id,
  cityHash64(session_code) AS session_hash,
  created_at,
  if(event_type = 'quiz_answered', concat('quiz:', properties['question_id'], ':', properties['choice_id']), concat('cta:', properties['card_index'])) AS choice,
  lower(properties['next_video_code']) AS next_video_code
FROM player_events
WHERE event_type IN ('quiz_answered', 'cta_click') AND properties['next_video_code'] != '' AND session_code != '';

-- A batch replayed from the ingest spool adds no step twice (as 0012_dedup_window.sql for the other tables).
ALTER TABLE funnel_steps MODIFY SETTING non_replicated_deduplication_window = 10000;
