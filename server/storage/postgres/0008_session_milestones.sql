-- The play milestones (25, 50, 75, 100 %) a session has already announced as
-- `play.milestone`, one bit each: a player that sends one again (a reload, a
-- retried beacon, a rewatch) announces it once.
ALTER TABLE viewer_sessions ADD COLUMN milestones_sent smallint NOT NULL DEFAULT 0;
