-- A player batch sent twice is written once (README "Production"): the player numbers
-- its batches per session (`seq`), and the session keeps the highest number it took
-- and a bit for each of the 63 below it, so a batch retried after a lost answer, or
-- sent again by a beacon at unload or from the queue a later page view finds, is
-- recognised as one already written.
ALTER TABLE viewer_sessions ADD COLUMN IF NOT EXISTS collect_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE viewer_sessions ADD COLUMN IF NOT EXISTS collect_seen bigint NOT NULL DEFAULT 0;
