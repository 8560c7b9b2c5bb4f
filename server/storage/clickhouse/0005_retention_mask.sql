-- Retention's default of 100 buckets, kept with each slot row: the bitmask of the 100
-- buckets whose midpoints its watched ranges cover, for its own duration_s. It is the
-- mask retentionSql (server/modules/analytics/queries.ts) builds at read time with
-- N = 100 and D = duration_s, so a read of a video whose ranges all carry one duration
-- skips building masks. Keep the two expressions in step (test/integration/analytics.test.ts
-- compares them). New rows get it when written (the view does not list it, so the
-- DEFAULT fills it); older parts compute it when read until the mutation below has
-- rewritten them. Merging rows ORs their masks, as the read ORs a session's ranges.
ALTER TABLE analytics_session_slots ADD COLUMN IF NOT EXISTS mask100 SimpleAggregateFunction(groupBitOr, UInt128) DEFAULT if(duration_s > 0,
  arrayFold((acc, r) -> bitOr(acc, if(toInt32(least(greatest(ceil(r.2 * 100. / duration_s - 0.5) - 1, -1.), 99.)) >= toInt32(greatest(ceil(r.1 * 100. / duration_s - 0.5), 0.)),
    CAST(bitShiftLeft(toUInt128(1), toInt32(least(greatest(ceil(r.2 * 100. / duration_s - 0.5) - 1, -1.), 99.)) + 1) - bitShiftLeft(toUInt128(1), toInt32(greatest(ceil(r.1 * 100. / duration_s - 0.5), 0.))) AS UInt128),
    toUInt128(0))), ranges, toUInt128(0)),
  toUInt128(0));

ALTER TABLE analytics_session_slots MATERIALIZE COLUMN mask100;
