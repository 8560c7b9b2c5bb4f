-- analytics_group_rollups again, read in granules of 32 rows rather than 8,192 (bounded by
-- 10 MiB: about 2,000 of its rows). A read takes a few dozen rows of one dimension (the
-- overview's days and hours, a breakdown of a few values), and ClickHouse decodes every
-- row of each granule it touches: with granules of 2,000 rows of distinct-viewer states
-- of every dimension, the seller overview of a 100-million-event video decoded a hundred
-- times the states it merged (bench/analytics.bench.ts; README "How fresh, how exact").
-- A table's granule size is fixed when it is made, so it is made again.
--
-- Its rows are sealed from the sessions, so none is copied: the marks are reset (reads
-- take every session until the next seal, which covers every hour again from the first
-- session and fills the new table), the table is dropped and made again, and the marks
-- are reset once more, for a seal that ran meanwhile into the table dropped. Safe to run
-- again: it only re-seals. A process that read a mark less than 30 seconds before
-- (rollups.ts MARK_TTL_MS) reads the new table, empty, until it reads the marks again.
ALTER TABLE analytics_rollup_marks DELETE WHERE 1;

DROP TABLE IF EXISTS analytics_group_rollups;

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
ORDER BY (workspace_id, video_id, dimension, grain, period, generation)
SETTINGS index_granularity = 32;

ALTER TABLE analytics_rollup_marks DELETE WHERE 1;
