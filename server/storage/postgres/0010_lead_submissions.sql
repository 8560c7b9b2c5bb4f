-- Who left an email in which video's lead form or watch gate (the player asks
-- GET /v1/lead-status before it shows the form again): one row per video and
-- email, pointing at the identity's viewer.
CREATE TABLE lead_submissions (
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  video_id     bigint NOT NULL REFERENCES videos(id) ON DELETE CASCADE,
  email_sha256 char(64) NOT NULL,
  viewer_id    bigint REFERENCES viewers(id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, video_id, email_sha256)
);
CREATE INDEX lead_submissions_viewer ON lead_submissions (workspace_id, video_id, viewer_id);
