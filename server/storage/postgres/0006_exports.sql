-- Analytics exports (docs/api.md "Exports"): the request, its build job state and the
-- blob it produced. The row is its own job: workers claim it with FOR UPDATE SKIP LOCKED.

CREATE TABLE exports (
  id           bigserial PRIMARY KEY,
  public_id    varchar(64) NOT NULL UNIQUE,               -- flex_<hex>, the export_id on the wire
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  type         varchar(16) NOT NULL CHECK (type IN ('events', 'summary', 'retention', 'conversions')),
  format       varchar(8) NOT NULL CHECK (format IN ('csv', 'json')),
  video_ids    bigint[] NOT NULL,
  video_codes  text[] NOT NULL,                            -- captured at creation, parallel to video_ids
  date_from    date NOT NULL,
  date_to      date NOT NULL,
  status       varchar(16) NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'ready', 'failed')),
  attempts     integer NOT NULL DEFAULT 0,
  locked_until timestamptz,                                -- lease of the worker building it
  blob_key     text,
  row_count    bigint,
  byte_size    bigint,
  error        text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz,
  expires_at   timestamptz NOT NULL
);
CREATE INDEX exports_workspace ON exports (workspace_id);
CREATE INDEX exports_claimable ON exports (created_at) WHERE status IN ('pending', 'processing');
CREATE INDEX exports_expiry ON exports (expires_at);
