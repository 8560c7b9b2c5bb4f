/**
 * Run in its own process (chDB allows one data directory per process): builds the
 * ClickHouse schema at argv[2] (a chDB path, or a database on CLICKHOUSE_URL's server:
 * clickhouse-before.ts) up to, not including, 0010; writes sessions that loaded,
 * played, autoplayed, unmuted, sent the lead form, one that only sent a watched range
 * and one whose load and play fall in two slots, merges them, and applies 0010 as an
 * upgrade does. Prints the overview's counts read right after the upgrade, once its
 * mutation has run, and after one more session written as this version does, with the
 * stored `flags` of each slot row.
 */
import { migrateClickHouse } from "../../server/storage/clickhouse.ts";
import { eventRow, overviewOfVideo7, schemaBefore, slotMutationsDone } from "./clickhouse-before.ts";
import * as q from "../../server/api/analytics/queries.ts";

const target = process.argv[2]!;
const ch = await schemaBefore(target, "0010");

const session = (name: string, at: string, ...types: string[]) => types.map((type, i) => eventRow(name, type, `${at}:${String(i).padStart(2, "0")}`));

await ch.insert({
  table: "player_events",
  values: [
    ...session("lead", "2026-11-01 10:00", "load", "play", "lead_form_submitted"),
    ...session("muted", "2026-11-01 10:01", "load", "autoplay"),
    ...session("unmuted", "2026-11-01 10:02", "load", "autoplay", "unmute"),
    ...session("older-player", "2026-11-01 10:03", "play"),
    ...session("not-shown", "2026-11-01 10:04", "watched"),
    eventRow("two-slots", "load", "2026-11-01 10:14:59"),
    eventRow("two-slots", "play", "2026-11-01 10:15:01"),
  ],
  format: "JSONEachRow",
});
await ch.command({ query: "OPTIMIZE TABLE analytics_session_slots FINAL" });

const counts = async () => {
  const { impressions, plays, autoplays, unmutes, leads } = await overviewOfVideo7(ch, new Map());
  return { impressions, plays, autoplays, unmutes, leads };
};

const applied = await migrateClickHouse(ch);
const afterUpgrade = await counts();
await slotMutationsDone(ch);
const afterMutation = await counts();
await ch.insert({ table: "player_events", values: session("new", "2026-11-01 11:00", "load", "autoplay", "unmute"), format: "JSONEachRow" });
const after = await counts();
const stored = await q.rows<{ session: string; flags: number }>(ch, {
  query: `SELECT transform(session_hash, arrayMap(s -> cityHash64(s), {names:Array(String)}), {names:Array(String)}, '?') AS session, groupBitOr(flags) AS flags
FROM analytics_session_slots GROUP BY session ORDER BY session`,
  query_params: { names: ["lead", "muted", "unmuted", "older-player", "not-shown", "two-slots", "new"] },
});
process.stdout.write(
  JSON.stringify({ applied, afterUpgrade, afterMutation, after, stored: Object.fromEntries(stored.map((r) => [r.session, Number(r.flags)])) }),
);
await ch.close();
