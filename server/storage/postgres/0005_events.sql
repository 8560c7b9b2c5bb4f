-- Known viewers and their identity graph, leads, the conversions ledger, the
-- event-name registry (100-name cap) and custom-event dedup (docs/api.md "Viewer
-- identity", "Custom events", "Conversion verification").

CREATE TABLE viewers (
  id           bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX viewers_workspace ON viewers (workspace_id);

-- A player session: the viewer it belongs to and the last video it played.
CREATE TABLE viewer_sessions (
  workspace_id  bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  session_code  varchar(100) NOT NULL,
  viewer_id     bigint NOT NULL REFERENCES viewers(id) ON DELETE CASCADE,
  device_id     varchar(100),
  video_id      bigint,
  video_code    varchar(100),
  first_play_at timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, session_code)
);

-- Every other key a viewer resolves by: device, profile, email/phone hashes, external id.
-- The first viewer a key is linked to keeps it (links are never moved).
CREATE TABLE viewer_keys (
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  kind         varchar(16) NOT NULL, -- device | profile | email_sha256 | email_md5 | phone_sha256 | phone_md5 | external_id
  key          varchar(255) NOT NULL,
  viewer_id    bigint NOT NULL REFERENCES viewers(id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, kind, key)
);
CREATE INDEX viewer_keys_viewer ON viewer_keys (viewer_id);

-- A real contact: only from a raw email sent together with a video_code.
CREATE TABLE leads (
  id           bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  email        varchar(255) NOT NULL,
  email_sha256 char(64) NOT NULL,
  video_id     bigint,
  video_code   varchar(100),
  viewer_id    bigint REFERENCES viewers(id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, email_sha256)
);

-- The conversions ledger: one row per (workspace, dedup_key); a verified
-- postback overwrites an unverified browser row, never the other way round.
CREATE TABLE conversions (
  id                      bigserial PRIMARY KEY,
  workspace_id            bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  dedup_key               varchar(255) NOT NULL,
  integration             varchar(60),
  conversion_id           varchar(190) NOT NULL,
  conversion_type         varchar(40) NOT NULL DEFAULT 'purchase',
  verified                boolean NOT NULL,
  conversion_source       varchar(16) NOT NULL, -- api | browser
  video_id                bigint,
  video_code              varchar(100),
  session_code            varchar(100),
  device_id               varchar(100),
  viewer_id               bigint,
  value                   numeric(18, 4),
  currency                char(3),
  product_code            varchar(190),
  product_name            varchar(255),
  customer_email_sha256   char(64),
  customer_phone_sha256   char(64),
  customer_name           varchar(255),
  data                    jsonb NOT NULL DEFAULT '{}',
  is_test                 boolean NOT NULL DEFAULT false,
  split_test_id           varchar(190),
  split_test_variation_id varchar(190),
  occurred_at             timestamptz NOT NULL,
  -- Set once the verified row has landed in ClickHouse `events`, so a retry rewrites it only when it had not.
  event_written_at        timestamptz,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, dedup_key)
);
CREATE INDEX conversions_video ON conversions (workspace_id, video_id, occurred_at);

-- Distinct custom-event names per workspace (docs/api.md "Custom events" rule 6: at most 100).
CREATE TABLE event_names (
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name         varchar(64) NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, name)
);

-- event_id dedup for 24 h (rule 5): the answer given the first time, replayed on a repeat.
-- `written` turns true once the row is in ClickHouse; a stale unwritten claim is taken over.
CREATE TABLE event_dedup (
  workspace_id bigint NOT NULL,
  event_id     varchar(255) NOT NULL,
  event        varchar(64) NOT NULL,
  attributed   boolean NOT NULL,
  matched_by   varchar(16),
  written      boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, event_id)
);
CREATE INDEX event_dedup_created ON event_dedup (created_at);
