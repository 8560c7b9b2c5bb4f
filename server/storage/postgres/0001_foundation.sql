-- Workspaces, tokens, videos, folders, drafts, the outbox, idempotency keys
-- and rate-limit windows: everything the foundation needs.

CREATE TABLE workspaces (
  id              bigserial PRIMARY KEY,
  code            uuid NOT NULL UNIQUE,
  name            varchar(255) NOT NULL,
  legacy_key_hash char(64) NOT NULL UNIQUE,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_tokens (
  id           bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name         varchar(255) NOT NULL,
  scopes       text[] NOT NULL,
  token_hash   char(64) NOT NULL UNIQUE,
  expires_at   timestamptz,
  revoked_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_tokens_workspace ON api_tokens (workspace_id);

CREATE TABLE folders (
  id           bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  parent_id    bigint REFERENCES folders(id) ON DELETE SET NULL,
  name         varchar(255) NOT NULL,
  color        varchar(32),
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX folders_workspace ON folders (workspace_id);

CREATE TABLE videos (
  id                  bigserial PRIMARY KEY,
  workspace_id        bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  code                uuid NOT NULL UNIQUE,
  title               varchar(255) NOT NULL,
  folder_id           bigint REFERENCES folders(id) ON DELETE SET NULL,
  tags                text[] NOT NULL DEFAULT '{}',
  player_version      varchar(8) NOT NULL DEFAULT 'v2',
  plain_mode          boolean NOT NULL DEFAULT false,
  default_orientation varchar(16) NOT NULL DEFAULT 'landscape',
  -- Option groups, one JSON object per group name (docs/api.md "Settings option groups").
  settings            jsonb NOT NULL DEFAULT '{}',
  landscape_hls       text,
  portrait_hls        text,
  landscape_thumb     text,
  portrait_thumb      text,
  -- Per orientation: null until a file is sent, then {status, progress, error, ...}.
  landscape_media     jsonb,
  portrait_media      jsonb,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX videos_workspace_id ON videos (workspace_id, id);
CREATE INDEX videos_folder ON videos (folder_id);

-- The pending settings draft of a video (one row at most).
CREATE TABLE video_drafts (
  video_id   bigint PRIMARY KEY REFERENCES videos(id) ON DELETE CASCADE,
  settings   jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Lifecycle events written in the same transaction as the change they describe;
-- the webhook deliverer fans them out.
CREATE TABLE outbox (
  id           bigserial PRIMARY KEY,
  event_id     uuid NOT NULL UNIQUE,
  workspace_id bigint NOT NULL,
  event        varchar(64) NOT NULL,
  data         jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  dispatched_at timestamptz
);
CREATE INDEX outbox_pending ON outbox (id) WHERE dispatched_at IS NULL;

CREATE TABLE idempotency_keys (
  workspace_id    bigint NOT NULL,
  key             varchar(255) NOT NULL,
  request_hash    char(64) NOT NULL,
  state           varchar(16) NOT NULL, -- running | done
  response_status integer,
  response_body   jsonb,
  created_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- Fixed one-minute windows per token and kind, shared by every process.
CREATE TABLE rate_limits (
  bucket       varchar(128) NOT NULL,
  window_start bigint NOT NULL,
  hits         integer NOT NULL,
  PRIMARY KEY (bucket, window_start)
);

-- Names a workspace declares for browser custom events (docs/api.md "Custom events").
CREATE TABLE custom_metrics (
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name         varchar(64) NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, name)
);

-- Integrations configured per workspace (browser conversion fallback switch).
CREATE TABLE integrations (
  workspace_id     bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name             varchar(60) NOT NULL,
  browser_fallback boolean NOT NULL DEFAULT false,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, name)
);

-- Processes that cache video rows hear about every change, whoever made it.
CREATE FUNCTION notify_video_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('frameline_video_changed', OLD.id::text);
  RETURN NULL;
END $$;
CREATE TRIGGER videos_changed AFTER UPDATE OR DELETE ON videos FOR EACH ROW EXECUTE FUNCTION notify_video_changed();
