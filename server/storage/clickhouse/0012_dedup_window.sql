-- Nothing counted twice when a batch is sent again (README "Production", ingest spool):
-- every insert carries an insert_deduplication_token, and each table that rows reach
-- (directly or through a view) remembers the last tokens it took, so a batch replayed
-- from the spool, or sent again after a timeout that had in fact landed, is skipped.
ALTER TABLE events MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE ingest_counters MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE analytics_session_slots MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE analytics_sales MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE analytics_sessions MODIFY SETTING non_replicated_deduplication_window = 10000;
