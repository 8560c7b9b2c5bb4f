-- The seller metrics per sealed hour and day (server/api/analytics/group-rollups.ts),
-- beside the summary's (0013_rollups.sql): the overview, the workspace overview and the
-- breakdowns of thirty days merge about thirty day rows per value and read sessions only
-- for the hours not sealed yet (README "How fresh, how exact").
--
-- One row per video, `dimension` and `value`, sealed under a `generation` as 0013's rows
-- are (reads take each period's latest):
-- - `dimension` 'video' (value: the video id) and each breakdown dimension (metrics.ts
--   DIMENSIONS): the shown sessions that started in the period, their facts, and the
--   verified, non-test sales traced to them, whenever those were made. Money maps are
--   keyed `<15-minute slot of the sale, UTC>|<currency>`, so a read keeps the sales made
--   inside its window (a window's edges are slot boundaries in every time zone).
-- - `dimension` 'sales' (value ''): the video's verified, non-test sales made in the
--   period, traced to a session or not: the overview's orders and revenue.
-- Distinct viewers are a HyperLogLog state (exact up to 4,096). Startup times are kept
-- as they are in a row of at most 256, so small groups' quantiles stay exact, and always
-- as a t-digest, which larger groups read.
CREATE TABLE IF NOT EXISTS analytics_group_rollups (
  workspace_id   UInt64,
  video_id       UInt64,
  dimension      LowCardinality(String),
  value          String,
  grain          LowCardinality(String),   -- 'hour' or 'day'
  period         DateTime('UTC'),          -- its start
  generation     UInt64,
  sealed_at      DateTime64(3, 'UTC'),
  impressions    UInt64,
  plays          UInt64,
  autoplays      UInt64,
  unmutes        UInt64,
  viewers        AggregateFunction(uniqCombined64(17), UInt64),
  watch_played_s Float64,
  buckets_played UInt64,
  cta_clicks     Map(UInt8, UInt64),
  leads          UInt64,
  startup_count  UInt64,
  startups       Array(Float64),
  startups_digest AggregateFunction(quantilesTDigest(0.5, 0.95), Float64),
  stall_ms       Float64,
  watch_all_s    Float64,
  errors         UInt64,
  cta_sessions   UInt64,
  orders         Map(String, UInt64),
  revenue        Map(String, Float64),
  played_orders  Map(String, UInt64)
) ENGINE = MergeTree
PARTITION BY toYYYYMM(period)
ORDER BY (workspace_id, video_id, dimension, grain, period, generation);

-- Each sale row written, so a seal finds the sealed hours it changes: the hour it was made
-- in ('sales' rows) and, through its session, the hour that session started in.
CREATE TABLE IF NOT EXISTS analytics_rollup_sale_dirty (
  workspace_id UInt64,
  video_id     UInt64,
  session_hash UInt64,
  hour         DateTime('UTC'),
  changed_at   DateTime64(3, 'UTC')
) ENGINE = MergeTree
ORDER BY changed_at
TTL toDateTime(changed_at) + INTERVAL 7 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS analytics_rollup_sale_dirty_from_sales TO analytics_rollup_sale_dirty AS
SELECT workspace_id, video_id, session_hash, toStartOfHour(created_at) AS hour, now64(3) AS changed_at
FROM analytics_sales;

-- The marks said how far the summary's rows go; these rows start empty. Without marks the
-- next seal covers every hour again from the first session, which changes no figure (its
-- rows replace the old ones). Safe to run again.
ALTER TABLE analytics_rollup_marks DELETE WHERE 1;
