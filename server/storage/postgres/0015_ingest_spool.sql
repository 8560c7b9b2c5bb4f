-- The ingest spool (README "Production"): a batch ClickHouse could not take (down,
-- timing out, refusing for load) is kept here, in the same transaction-safe store as
-- everything acknowledged, and its request is answered as accepted. A drainer in every
-- process replays the oldest batches when ClickHouse answers again, with the batch's
-- token so a batch that had in fact landed is not counted twice.
CREATE TABLE ingest_spool (
  id          bigserial PRIMARY KEY,
  target      text NOT NULL,            -- the ClickHouse table the rows go to
  token       text NOT NULL,            -- the batch's insert_deduplication_token
  row_count   integer NOT NULL,
  rows        jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  attempts    integer NOT NULL DEFAULT 0,
  -- Set when ClickHouse refused the rows themselves (not an outage): kept for an operator, never replayed.
  refused     text
);
CREATE INDEX ingest_spool_pending ON ingest_spool (id) WHERE refused IS NULL;
