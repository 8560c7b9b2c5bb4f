-- Deploy versions of docs/api.md "Deploy version": one row per deploy or restore,
-- holding the whole option-group object (not a diff). Drafts live in
-- video_drafts (0001); playlists live inside videos.settings.playlist_options.

CREATE TABLE deploy_versions (
  id                 bigserial PRIMARY KEY,
  workspace_id       bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  workspace_video_id bigint NOT NULL REFERENCES videos(id) ON DELETE CASCADE,
  created_by         bigint,
  label              varchar(255),
  version_hash       varchar(64) NOT NULL,
  settings_snapshot  jsonb NOT NULL,
  is_live            boolean NOT NULL DEFAULT false,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
-- The deploys list: newest first per video.
CREATE INDEX deploy_versions_video ON deploy_versions (workspace_video_id, id DESC);
-- At most one live version per video.
CREATE UNIQUE INDEX deploy_versions_live ON deploy_versions (workspace_video_id) WHERE is_live;

-- GET /playlists lists the videos whose playlist is enabled.
CREATE INDEX videos_playlist_enabled ON videos (workspace_id, id) WHERE (settings -> 'playlist_options' ->> 'enabled') = 'true';
