-- Webhook subscriptions (docs/api.md "Webhook subscriptions", "Automation-platform
-- REST hooks") and their deliveries: one row per (subscription, outbox event),
-- claimed by any number of deliverer processes with FOR UPDATE SKIP LOCKED.

CREATE TABLE webhook_subscriptions (
  id            bigserial PRIMARY KEY,
  workspace_id  bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name          varchar(128) NOT NULL,
  url           varchar(2048) NOT NULL,
  events        text[] NOT NULL,
  -- Kept as given (or generated): the HMAC key is derived from it at signing time.
  secret        varchar(128) NOT NULL,
  is_active     boolean NOT NULL DEFAULT true,
  -- Consecutive failed attempts; a 2xx resets it.
  failure_count integer NOT NULL DEFAULT 0,
  -- zapier | make | n8n for subscriptions made through the automation routes.
  source        varchar(16),
  disabled_reason varchar(255),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_subscriptions_workspace ON webhook_subscriptions (workspace_id, id);

CREATE TABLE webhook_deliveries (
  id              bigserial PRIMARY KEY,
  subscription_id bigint NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
  outbox_id       bigint NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,
  -- pending | delivered | failed | cancelled
  state           varchar(16) NOT NULL DEFAULT 'pending',
  -- Attempts started (counted when claimed, so a crash mid-attempt still counts).
  attempts        integer NOT NULL DEFAULT 0,
  -- When pending: due time; while an attempt runs it is the claim's lease expiry.
  next_attempt_at timestamptz NOT NULL,
  last_status     integer,
  last_error      varchar(500),
  delivered_at    timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (subscription_id, outbox_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_outbox ON webhook_deliveries (outbox_id);
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (updated_at) WHERE state <> 'pending';
