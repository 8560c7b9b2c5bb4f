/**
 * Run in its own process (chDB allows one data directory per process): builds the
 * ClickHouse schema at argv[2] (a chDB path, or a database on CLICKHOUSE_URL's server:
 * clickhouse-before.ts) up to, not including, 0009; writes page views with a
 * utm_source, with only a referrer and with neither, merges them, and applies 0009 as
 * an upgrade does. Then writes one more view as this version does, and prints the
 * breakdown by source (value and impressions) read right after the upgrade and after the new view,
 * and the stored `source` of the rows.
 */
import { migrateClickHouse } from "../../server/storage/clickhouse.ts";
import { eventRow, schemaBefore, slotMutationsDone } from "./clickhouse-before.ts";
import { readMetrics } from "../../server/api/analytics/metrics.ts";
import * as q from "../../server/api/analytics/queries.ts";

const target = process.argv[2]!;
const ch = await schemaBefore(target, "0009");

const view = (session: string, at: string, properties: Record<string, string>) => [
  eventRow(session, "load", `${at}:00`, { properties }),
  eventRow(session, "play", `${at}:01`),
];

await ch.insert({
  table: "player_events",
  values: [
    ...view("utm", "2026-11-01 10:00", { utm_source: "newsletter", referrer_host: "mail.example.com" }),
    ...view("ref", "2026-11-01 10:20", { referrer_host: "google.com" }),
    ...view("none", "2026-11-01 10:40", {}),
  ],
  format: "JSONEachRow",
});
await ch.command({ query: "OPTIMIZE TABLE analytics_session_slots FINAL" });

const scope: q.Scope = { workspaceId: 1, videoIds: [7], start: "2026-11-01 00:00:00", end: "2026-11-02 00:00:00", tz: "UTC" };
const masks = { durations: new Map<number, number>(), storedMasks: true };
const bySource = async () => (await readMetrics(ch, scope, { kind: "dimension", dimension: "source" }, masks, 50)).map((r) => [r.value, Number(r.impressions)]);

const applied = await migrateClickHouse(ch);
const afterUpgrade = await bySource();
await slotMutationsDone(ch);
await ch.insert({
  table: "player_events",
  values: view("new", "2026-11-01 11:00", { utm_source: "ads", referrer_host: "facebook.com" }),
  format: "JSONEachRow",
});
const after = await bySource();
const stored = await q.rows<{ source: string }>(ch, {
  query: "SELECT source FROM analytics_session_slots WHERE source != '' ORDER BY source",
  query_params: {},
});
process.stdout.write(JSON.stringify({ applied, afterUpgrade, after, stored: stored.map((r) => r.source) }));
await ch.close();
