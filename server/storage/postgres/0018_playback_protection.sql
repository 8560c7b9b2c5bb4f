-- Playback protection (README "Playback protection"). Per video: the sites allowed to
-- play it (empty: any) and whether every media request needs a signed token. A
-- workspace's defaults are copied onto each video it creates. Signing keys let a
-- seller's server mint tokens offline; only the key's secret is needed to check a
-- token, and a revoked key stays listed (revoked_at) so every process learns of it.
ALTER TABLE videos ADD COLUMN IF NOT EXISTS allowed_origins text[] NOT NULL DEFAULT '{}';
ALTER TABLE videos ADD COLUMN IF NOT EXISTS require_signed_urls boolean NOT NULL DEFAULT false;

CREATE TABLE IF NOT EXISTS playback_defaults (
  workspace_id        bigint PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  allowed_origins     text[] NOT NULL DEFAULT '{}',
  require_signed_urls boolean NOT NULL DEFAULT false,
  updated_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS signing_keys (
  id           uuid PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  secret       text NOT NULL, -- base64url
  -- The key the service itself mints tokens with (POST /videos/{id}/token); never listed.
  internal     boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL DEFAULT now(),
  revoked_at   timestamptz
);
CREATE INDEX IF NOT EXISTS signing_keys_workspace ON signing_keys (workspace_id, created_at);
CREATE UNIQUE INDEX IF NOT EXISTS signing_keys_internal ON signing_keys (workspace_id) WHERE internal;
