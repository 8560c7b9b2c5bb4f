-- Blocks of sealed hours and days (README "How fresh, how exact"): besides each hour and
-- day, the seal keeps aligned blocks of 2, 4, 8 and 16 hours inside a UTC day (grains '2h'
-- to '16h', merged from their hours) and of 2 to 256 days ('2d' to '256d', merged from
-- their days). A read takes the largest blocks inside its window, so a month ending this
-- evening is about eight rows per video (per value, for a breakdown) rather than fifty:
-- merging a row costs the same whatever span it holds.
--
-- A seal by a process of an earlier release (during a rolling upgrade) writes no blocks,
-- and its mark would make reads take blocks that are not there: such a seal is refused from
-- now on (it fails and records no mark; a worker of this release seals those hours). Only
-- inserts are checked.
ALTER TABLE analytics_rollups ADD CONSTRAINT IF NOT EXISTS sealed_with_blocks CHECK seal_format >= 2;

ALTER TABLE analytics_group_rollups ADD CONSTRAINT IF NOT EXISTS sealed_with_blocks CHECK seal_format >= 2;

-- Every hour is sealed again, with its blocks: reads take every session until that seal is
-- done. Safe to run again: it only re-seals.
ALTER TABLE analytics_rollup_marks DELETE WHERE 1;
