-- The viewer an event was attributed to (0 = unattributed): lets analytics join
-- a viewer's plays to their custom events and sales across sessions.
ALTER TABLE events ADD COLUMN IF NOT EXISTS viewer_id UInt64 DEFAULT 0;
