-- Retention of buyers and non-buyers (`segment=buyers|non_buyers`) from sealed hours and
-- days, as the curve of everyone (README "How fresh, how exact"). A buyer is a played
-- session traced to a verified, non-test sale of its video made inside the read's window,
-- so a sealed row keeps, of its played sessions with such a sale (about one in fifty):
-- how many, how many watched each bucket, and the first and last of their sales; a window
-- that holds all those sales takes the sums, any other counts the sessions one by one,
-- from `buyer_masks` (each one's 100-bucket mask and the times of its sales).
ALTER TABLE analytics_rollups
  ADD COLUMN IF NOT EXISTS buyers UInt64,
  ADD COLUMN IF NOT EXISTS buyer_buckets Array(UInt64),
  ADD COLUMN IF NOT EXISTS buyer_sales_from DateTime64(3, 'UTC'),
  ADD COLUMN IF NOT EXISTS buyer_sales_to DateTime64(3, 'UTC'),
  ADD COLUMN IF NOT EXISTS buyer_masks Array(Tuple(UInt128, Array(DateTime64(3, 'UTC')))),
  ADD COLUMN IF NOT EXISTS seal_format UInt8 DEFAULT 0;

-- A row sealed by a process of an earlier release (during a rolling upgrade) would have no
-- buyers and still read as sealed: such a seal is refused from now on (it fails and
-- records no mark, and a worker of this release seals those hours), as rows of format 1
-- keep the buyers. Only inserts are checked: the rows already sealed stay until the seal
-- below supersedes them.
ALTER TABLE analytics_rollups ADD CONSTRAINT IF NOT EXISTS sealed_with_buyers CHECK seal_format >= 1;

-- Every hour is sealed again, with its buyers: reads take every session until that seal is
-- done. Safe to run again: it only re-seals.
ALTER TABLE analytics_rollup_marks DELETE WHERE 1;
