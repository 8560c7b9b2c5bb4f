-- Split-test reports from sealed hours and days (README "How fresh, how exact"): the
-- seller rollups (0015, 0016) gain the dimension 'split_test' (value '<test id>:<variation
-- id>', only for sessions served a variation). A test's sale may credit any video of the
-- test, so a 'split_test' row's money maps hold the sales of its sessions whichever video
-- they credit, and two columns more:
-- - `sale_videos`: the videos those sales credit. A report whose test no longer holds one
--   of them reads every session instead (the rule is: sales of the test's videos).
-- - `played_buyer_sales`: for each played session with a sale, the times of its sales,
--   so a report counts the sessions that bought inside its window (its conversion goal).
ALTER TABLE analytics_group_rollups
  ADD COLUMN IF NOT EXISTS sale_videos Array(UInt64),
  ADD COLUMN IF NOT EXISTS played_buyer_sales Array(Array(DateTime64(3, 'UTC'))),
  ADD COLUMN IF NOT EXISTS seal_format UInt8 DEFAULT 0;

-- A seal by a process of an earlier release (during a rolling upgrade) writes no
-- 'split_test' rows, and its mark would make reports skip those hours' sessions: such a
-- seal is refused from now on (it fails and records no mark; a worker of this release seals
-- those hours). Only inserts are checked.
ALTER TABLE analytics_group_rollups ADD CONSTRAINT IF NOT EXISTS sealed_with_split_tests CHECK seal_format >= 1;

-- Every hour is sealed again, with its split tests: reads take every session until that
-- seal is done. Safe to run again: it only re-seals.
ALTER TABLE analytics_rollup_marks DELETE WHERE 1;
