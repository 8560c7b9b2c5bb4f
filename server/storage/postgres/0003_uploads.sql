-- Resumable upload sessions (docs/api.md "Upload session") and encode jobs.

CREATE TABLE upload_sessions (
  id            varchar(64) PRIMARY KEY,          -- flup_ + lowercase hex (docs/api.md)
  workspace_id  bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  video_id      bigint NOT NULL REFERENCES videos(id) ON DELETE CASCADE,
  orientation   varchar(16) NOT NULL,
  filename      varchar(255) NOT NULL,
  mime_type     varchar(64) NOT NULL,
  size          bigint NOT NULL,
  chunk_size    integer NOT NULL,
  "offset"      bigint NOT NULL DEFAULT 0,
  -- Blob parts written so far ({partNumber, etag, size}); offset is their sum.
  parts         jsonb NOT NULL DEFAULT '[]',
  blob_key      text NOT NULL,
  blob_handle   text NOT NULL,
  state         varchar(16) NOT NULL DEFAULT 'open', -- open | completed | closed | expired
  -- Write lease: one PATCH or complete at a time per session, without holding a
  -- connection (or a transaction) open while a chunk streams in.
  lock_token    varchar(64),
  locked_until  timestamptz,
  expires_at    timestamptz NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX upload_sessions_workspace ON upload_sessions (workspace_id);
CREATE INDEX upload_sessions_expiry ON upload_sessions (expires_at) WHERE state = 'open';

-- One row per file handed to the encoder. Claimed with FOR UPDATE SKIP LOCKED; a
-- running job whose lease (locked_until) lapsed belongs to a dead worker and is
-- claimed again.
CREATE TABLE encode_jobs (
  id            bigserial PRIMARY KEY,
  workspace_id  bigint NOT NULL,
  video_id      bigint NOT NULL REFERENCES videos(id) ON DELETE CASCADE,
  orientation   varchar(16) NOT NULL,
  source_key    text NOT NULL,
  size          bigint NOT NULL,
  state         varchar(16) NOT NULL DEFAULT 'queued', -- queued | running | done | failed | superseded
  attempts      integer NOT NULL DEFAULT 0,
  locked_by     varchar(64),
  locked_until  timestamptz,
  error         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX encode_jobs_claimable ON encode_jobs (id) WHERE state IN ('queued', 'running');
CREATE INDEX encode_jobs_video ON encode_jobs (video_id, orientation);
