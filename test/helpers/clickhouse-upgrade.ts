/**
 * Run in its own process (chDB allows one data directory per process): builds the
 * ClickHouse schema in a fresh chDB at argv[2] (or a database on CLICKHOUSE_URL's
 * server: clickhouse-before.ts) up to, not including, migration
 * argv[3], writes player events there and merges them, then applies the rest as
 * an upgrade does and waits for its mutations. Prints the slot rows as JSON, each
 * with whether its stored mask equals the one the read would build.
 */
import { migrateClickHouse } from "../../server/storage/clickhouse.ts";
import { schemaBefore, slotMutationsDone } from "./clickhouse-before.ts";
import { rangeMaskSql } from "../../server/api/analytics/queries.ts";

const [target, upgradeTo] = [process.argv[2]!, process.argv[3]!];
const ch = await schemaBefore(target, upgradeTo);

const watched = (session: string, at: string, from: number, seconds: number, duration?: string) => ({
  workspace_id: 1,
  video_id: 7,
  video_code: "v7",
  event_type: "watched",
  event: "",
  event_id: crypto.randomUUID(),
  session_code: session,
  device_id: "",
  watch_seconds: seconds,
  video_time: from,
  value: null,
  properties: duration ? { duration_s: duration } : {},
  created_at: at,
  viewer_id: 0,
});
// Session a: its first range came before the player knew the duration; b: one range with it.
await ch.insert({ table: "player_events", values: [watched("a", "2026-11-01 10:00:00", 0, 30)], format: "JSONEachRow" });
await ch.insert({
  table: "player_events",
  values: [watched("a", "2026-11-01 10:01:00", 30, 30, "100"), watched("b", "2026-11-01 10:02:00", 50, 50, "100")],
  format: "JSONEachRow",
});
await ch.command({ query: "OPTIMIZE TABLE analytics_session_slots FINAL" });

const applied = await migrateClickHouse(ch);
await slotMutationsDone(ch);
const rows = await (
  await ch.query({
    query: `SELECT length(ranges) AS range_count, duration_s, mask_min_duration_s, mask_max_duration_s, mask100 = ${rangeMaskSql("100.", "duration_s", "UInt128")} AS mask_as_built
            FROM analytics_session_slots ORDER BY length(ranges) DESC`,
    format: "JSONEachRow",
  })
).json();
const [parts] = await (
  await ch.query({
    query:
      "SELECT count() AS n FROM system.parts_columns WHERE database = currentDatabase() AND table = 'analytics_session_slots' AND active AND column = 'mask100'",
    format: "JSONEachRow",
  })
).json<{ n: string }>();
process.stdout.write(JSON.stringify({ applied, rows, partsWithMask: Number(parts!.n) }));
await ch.close();
