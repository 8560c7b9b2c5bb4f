-- The traffic source of the breakdowns (server/api/analytics/metrics.ts DIMENSIONS),
-- resolved when a slot row is written rather than at every read: utm_source when the
-- landing page had one, else the referrer's host, '' without either (the read names that
-- `direct`). Only `load` rows carry utm_* and the referrer (0006_seller_analytics.sql), so
-- the other rows of a session leave it '' and merging by max keeps the load row's value.
-- The views do not list it: the DEFAULT fills it from the row being written, and parts
-- written before compute it when read until the mutation below has rewritten them.
ALTER TABLE analytics_session_slots
  ADD COLUMN IF NOT EXISTS source SimpleAggregateFunction(max, String) DEFAULT if(utm_source != '', utm_source, referrer_host);

ALTER TABLE analytics_session_slots MATERIALIZE COLUMN source;
