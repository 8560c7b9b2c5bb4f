/**
 * Run in its own process (chDB allows one data directory per process): builds the
 * ClickHouse schema at argv[2] (a chDB path, or a database on CLICKHOUSE_URL's server:
 * clickhouse-before.ts) up to, not including, 0011; writes a session whose rows
 * fall in two slots (in two inserts, not merged) and a session within one slot, and
 * applies 0011 as an upgrade does. Prints the sessions table (FINAL) and the overview's
 * counts right after the upgrade, then after the first session's player sends one more
 * range as this version writes it (with the session's start).
 */
import { migrateClickHouse } from "../../server/storage/clickhouse.ts";
import { eventRow, overviewOfVideo7, schemaBefore, watchedRow } from "./clickhouse-before.ts";
import * as q from "../../server/api/analytics/queries.ts";

const target = process.argv[2]!;
const ch = await schemaBefore(target, "0011");

await ch.insert({
  table: "player_events",
  format: "JSONEachRow",
  values: [eventRow("two-slots", "load", "2026-11-01 10:14:50"), eventRow("two-slots", "play", "2026-11-01 10:14:55")],
});
await ch.insert({ table: "player_events", format: "JSONEachRow", values: [watchedRow("two-slots", "2026-11-01 10:16:00", 0, 60)] });
await ch.insert({
  table: "player_events",
  format: "JSONEachRow",
  values: [eventRow("one-slot", "load", "2026-11-01 11:00:00"), eventRow("one-slot", "autoplay", "2026-11-01 11:00:01")],
});

const read = async () => {
  const sessions = await q.rows<{ started: string; flags: number; watched_s: number }>(ch, {
    query: "SELECT started, flags, watched_s FROM analytics_sessions FINAL ORDER BY started",
    query_params: {},
  });
  const { impressions, plays, autoplays, watch_played_s } = await overviewOfVideo7(ch);
  return { sessions: sessions.map((s) => [s.started, Number(s.flags), Number(s.watched_s)]), overview: { impressions, plays, autoplays, watch_played_s } };
};

const applied = await migrateClickHouse(ch);
const afterUpgrade = await read();
await ch.insert({
  table: "player_events",
  format: "JSONEachRow",
  values: [{ ...watchedRow("two-slots", "2026-11-01 10:31:00", 60, 90), session_start: "2026-11-01 10:14:50" }],
});
const after = await read();
process.stdout.write(JSON.stringify({ applied, afterUpgrade, after }));
await ch.close();
