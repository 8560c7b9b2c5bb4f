-- Retention's default of 100 buckets, kept with each slot row: the bitmask of the 100
-- buckets whose midpoints its watched ranges cover, for its own duration_s. It is the
-- mask retentionSql (server/api/analytics/queries.ts) builds at read time with
-- N = 100 and D = duration_s, so a read of a video whose ranges all carry one duration
-- skips building masks. Keep the two expressions in step (test/integration/analytics.test.ts
-- compares them). New rows get it when written (the view does not list it, so the
-- DEFAULT fills it); older parts compute it when read until the mutation below has
-- rewritten them. Merging rows ORs their masks, as the read ORs a session's ranges.
--
-- A stored mask was built for the duration_s of the row it was written with; rows of a
-- session merge into one whose duration_s is their greatest. mask_min_duration_s and
-- mask_max_duration_s keep the least and greatest duration_s among the merged rows that
-- had ranges (inf and 0 when none had), so a read can tell whether every mask in a row
-- was built for its own duration. One ALTER adds the three columns and one mutation
-- fills them, so older parts are rewritten once, not three times.
ALTER TABLE analytics_session_slots
  ADD COLUMN IF NOT EXISTS mask100 SimpleAggregateFunction(groupBitOr, UInt128) DEFAULT if(duration_s > 0,
    arrayFold((acc, r) -> bitOr(acc, if(toInt32(least(greatest(ceil(r.2 * 100. / duration_s - 0.5) - 1, -1.), 99.)) >= toInt32(greatest(ceil(r.1 * 100. / duration_s - 0.5), 0.)),
      CAST(bitShiftLeft(toUInt128(1), toInt32(least(greatest(ceil(r.2 * 100. / duration_s - 0.5) - 1, -1.), 99.)) + 1) - bitShiftLeft(toUInt128(1), toInt32(greatest(ceil(r.1 * 100. / duration_s - 0.5), 0.))) AS UInt128),
      toUInt128(0))), ranges, toUInt128(0)),
    toUInt128(0)),
  ADD COLUMN IF NOT EXISTS mask_min_duration_s SimpleAggregateFunction(min, Float64) DEFAULT if(notEmpty(ranges), duration_s, inf),
  ADD COLUMN IF NOT EXISTS mask_max_duration_s SimpleAggregateFunction(max, Float64) DEFAULT if(notEmpty(ranges), duration_s, 0);

ALTER TABLE analytics_session_slots MATERIALIZE COLUMN mask100, MATERIALIZE COLUMN mask_min_duration_s, MATERIALIZE COLUMN mask_max_duration_s;
