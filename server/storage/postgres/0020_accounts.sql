-- Accounts of the dashboard (README "The dashboard"): users with an Argon2id
-- password and optional two-factor sign-in (TOTP, recovery codes), their sessions, their roles in workspaces, invites by link, the
-- sign-in back-off, and the audit list of sign-ins and changes.

CREATE TABLE users (
  id            bigserial PRIMARY KEY,
  email         varchar(254) NOT NULL,
  password_hash text NOT NULL,
  -- The TOTP secret (base32): set at setup, in force once `totp_enabled`; the last
  -- time step used, so a code works once.
  totp_secret    varchar(64),
  totp_enabled   boolean NOT NULL DEFAULT false,
  totp_last_step bigint,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email ON users (lower(email));

-- One-time recovery codes of two-factor sign-in, by SHA-256.
CREATE TABLE recovery_codes (
  user_id   bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash char(64) NOT NULL,
  used_at   timestamptz,
  PRIMARY KEY (user_id, code_hash)
);

-- A session is known by the SHA-256 of its cookie; its CSRF token travels in a header.
CREATE TABLE user_sessions (
  id_hash    char(64) PRIMARY KEY,
  user_id    bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_token varchar(64) NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX user_sessions_user ON user_sessions (user_id);

CREATE TABLE memberships (
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id      bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role         varchar(16) NOT NULL CHECK (role IN ('owner', 'editor', 'analyst')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

-- The API tokens a session minted for the dashboard's own calls: revoked with the
-- session, and when the member is removed.
CREATE TABLE session_api_tokens (
  token_id     bigint PRIMARY KEY REFERENCES api_tokens(id) ON DELETE CASCADE,
  session_hash char(64) NOT NULL,
  user_id      bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE
);
CREATE INDEX session_api_tokens_session ON session_api_tokens (session_hash);
CREATE INDEX session_api_tokens_member ON session_api_tokens (workspace_id, user_id);

CREATE TABLE invites (
  id           bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  email        varchar(254) NOT NULL,
  role         varchar(16) NOT NULL CHECK (role IN ('owner', 'editor', 'analyst')),
  token_hash   char(64) NOT NULL UNIQUE,
  invited_by   bigint REFERENCES users(id) ON DELETE SET NULL,
  expires_at   timestamptz NOT NULL,
  accepted_at  timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invites_workspace ON invites (workspace_id);

-- Failed sign-ins per client address and account: the back-off doubles and is capped,
-- so no one is locked out for good, and another address is not affected.
CREATE TABLE sign_in_failures (
  key          varchar(400) PRIMARY KEY,
  failures     integer NOT NULL,
  locked_until timestamptz,
  updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE audit_log (
  id           bigserial PRIMARY KEY,
  workspace_id bigint REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id      bigint REFERENCES users(id) ON DELETE SET NULL,
  actor        varchar(254) NOT NULL,
  action       varchar(64) NOT NULL,
  detail       jsonb NOT NULL DEFAULT '{}',
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_workspace ON audit_log (workspace_id, id DESC);
CREATE INDEX audit_log_user ON audit_log (user_id, id DESC);
