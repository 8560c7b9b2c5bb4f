/**
 * Run in its own process (chDB allows one data directory per process): builds the
 * ClickHouse schema at argv[2] (a chDB path, or a database on CLICKHOUSE_URL's server:
 * clickhouse-before.ts) up to, not including, 0006; writes what older versions
 * wrote (an older player's `play` and watched rows, a verified sale straight into
 * `events`) and merges it; applies 0006 as an upgrade does; then writes what this
 * version writes (a muted autoplay never unmuted, one unmuted). Prints the summary's
 * plays of the old sessions before and after, the plays after the new writes, and the
 * sales the seller reads see.
 */
import { migrateClickHouse } from "../../server/storage/clickhouse.ts";
import { eventRow, legacySale, schemaBefore } from "./clickhouse-before.ts";
import * as q from "../../server/api/analytics/queries.ts";
import { summarySql } from "../../server/api/analytics/rollups.ts";

const target = process.argv[2]!;
const ch = await schemaBefore(target, "0006");

await ch.insert({
  table: "player_events",
  values: [
    eventRow("old-1", "play", "2026-11-01 10:00:00"),
    eventRow("old-1", "watched", "2026-11-01 10:00:05", { watch_seconds: 30, properties: { duration_s: "100" } }),
    eventRow("old-2", "play", "2026-11-01 11:00:00"),
  ],
  format: "JSONEachRow",
});
await ch.insert({
  table: "events",
  values: [legacySale("old-1", "2026-11-01 10:05:00", "api:o-1", 40)],
  format: "JSONEachRow",
});
await ch.command({ query: "OPTIMIZE TABLE analytics_session_slots FINAL" });
const scope: q.Scope = { workspaceId: 1, videoIds: [7], start: "2026-11-01 00:00:00", end: "2026-11-02 00:00:00", tz: "UTC" };
// What the summary counted then: sessions with a play, from the slot rows.
const playsThen = async () =>
  Number(
    (
      await q.rows<{ plays: string }>(ch, {
        query: "SELECT countDistinctIf(session_hash, played = 1) AS plays FROM analytics_session_slots FINAL WHERE video_id = 7",
        query_params: {},
      })
    )[0]?.plays ?? 0,
  );
const plays = async () => Number((await q.rows<q.SummaryRow>(ch, summarySql(scope)))[0]?.plays ?? 0);
const before = await playsThen();

const applied = await migrateClickHouse(ch);
const after = await plays();
await ch.insert({
  table: "player_events",
  values: [
    eventRow("new-muted", "load", "2026-11-01 12:00:00"),
    eventRow("new-muted", "autoplay", "2026-11-01 12:00:01"),
    eventRow("new-unmuted", "load", "2026-11-01 12:10:00"),
    eventRow("new-unmuted", "autoplay", "2026-11-01 12:10:01"),
    eventRow("new-unmuted", "unmute", "2026-11-01 12:10:09"),
  ],
  format: "JSONEachRow",
});
const withNew = await plays();
const sales = await q.rows<{ key: string; amount: number; is_verified: number }>(ch, {
  query: `SELECT key, amount, is_verified FROM (${q.SALES_BY_KEY})`,
  query_params: q.salesParams(scope),
});
process.stdout.write(JSON.stringify({ applied, before, after, withNew, sales }));
await ch.close();
