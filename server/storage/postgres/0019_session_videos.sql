-- Which videos each player session played (the per-viewer reads of docs/api.md
-- "Viewers"): viewer_sessions keeps only the last video of a session, and a session
-- that moves on (a playlist) must still count among the first video's
-- viewers. One row per session and video, written when the session first plays it.
CREATE TABLE IF NOT EXISTS session_videos (
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  video_id     bigint NOT NULL,
  session_code varchar(100) NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, video_id, session_code)
);
CREATE INDEX IF NOT EXISTS session_videos_session ON session_videos (workspace_id, session_code);

-- Sessions recorded before this table: their last video, from when they began. Safe to run again.
INSERT INTO session_videos (workspace_id, video_id, session_code, created_at)
SELECT workspace_id, video_id, session_code, created_at FROM viewer_sessions WHERE video_id IS NOT NULL
ON CONFLICT DO NOTHING;

-- The viewers a video lists are found through their sessions, and their emails through their leads.
CREATE INDEX IF NOT EXISTS viewer_sessions_viewer ON viewer_sessions (workspace_id, viewer_id);
CREATE INDEX IF NOT EXISTS leads_viewer ON leads (workspace_id, viewer_id);

-- The leads export (docs/api.md "Viewers"): one more export type.
ALTER TABLE exports DROP CONSTRAINT IF EXISTS exports_type_check;
ALTER TABLE exports ADD CONSTRAINT exports_type_check CHECK (type IN ('events', 'summary', 'retention', 'conversions', 'overview', 'breakdown', 'leads'));
