-- The processes of a deployment (README "Running on several machines"): each app and
-- worker registers itself at start and touches its row while it runs, so a process
-- that would split the truth (another ClickHouse, media on one machine's disk) can be
-- refused, and an operator can see what runs (GET /admin/v1/processes).
CREATE TABLE processes (
  id          uuid PRIMARY KEY,
  role        text NOT NULL,          -- app | worker
  host        text NOT NULL,
  pid         integer NOT NULL,
  version     text NOT NULL,
  engines     jsonb NOT NULL,         -- {postgres, clickhouse, media}: where each engine is, without credentials
  public_url  text,                   -- PUBLIC_URL as set, null when defaulted
  started_at  timestamptz NOT NULL DEFAULT now(),
  last_seen   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX processes_last_seen ON processes (last_seen);
