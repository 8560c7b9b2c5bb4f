/**
 * A ClickHouse that already holds what older versions wrote, for the tests of
 * migrations run by several processes or run again: the schema up to (not
 * including) 0006, two played sessions (one over several slots) and a muted
 * autoplay that older versions did not keep, a verified sale straight into
 * `events` and one without a session; and `figures`, every analytics figure an upgrade's
 * backfills feed, read the way the seller reads and summed raw.
 */
import type { Ch } from "../../server/storage/clickhouse.ts";
import { readMetrics } from "../../server/api/analytics/metrics.ts";
import * as q from "../../server/api/analytics/queries.ts";
import { summarySql } from "../../server/api/analytics/rollups.ts";
import { eventRow, legacySale, schemaBefore, watchedRow } from "./clickhouse-before.ts";

export async function historyBefore0006(target: string): Promise<Ch> {
  const ch = await schemaBefore(target, "0006");
  await ch.insert({
    table: "player_events",
    format: "JSONEachRow",
    values: [
      eventRow("s1", "play", "2026-11-01 10:14:50"),
      watchedRow("s1", "2026-11-01 10:16:00", 0, 60),
      watchedRow("s1", "2026-11-01 10:31:00", 60, 600),
      eventRow("s2", "play", "2026-11-01 11:00:00"),
      watchedRow("s2", "2026-11-01 11:01:00", 0, 300),
      eventRow("s3", "autoplay", "2026-11-01 12:00:00"),
    ],
  });
  await ch.insert({
    table: "events",
    format: "JSONEachRow",
    values: [legacySale("s1", "2026-11-01 10:40:00", "api:o-1", 40), legacySale("", "2026-11-01 13:00:00", "", 25)],
  });
  return ch;
}

/** What this version writes after an upgrade: more of an old session, a new one, a sale through `sale_events`. */
export async function writeAfterUpgrade(ch: Ch): Promise<void> {
  await ch.insert({
    table: "player_events",
    format: "JSONEachRow",
    values: [
      {
        ...eventRow("s2", "watched", "2026-11-01 11:20:00", { video_time: 300, watch_seconds: 60, properties: { duration_s: "600" } }),
        session_start: "2026-11-01 11:00:00",
      },
      { ...eventRow("s4", "load", "2026-11-01 14:00:00"), session_start: "2026-11-01 14:00:00" },
      { ...eventRow("s4", "play", "2026-11-01 14:00:02"), session_start: "2026-11-01 14:00:00" },
    ],
  });
  await ch.insert({
    table: "sale_events",
    format: "JSONEachRow",
    values: [
      {
        ...eventRow("s4", "conversion", "2026-11-01 14:05:00", {
          event: "purchase",
          event_id: "api:o-2",
          value: 10,
          properties: { source: "api", currency: "USD" },
        }),
        session_start: "2026-11-01 14:00:00",
      },
    ],
  });
}

const SCOPE: q.Scope = { workspaceId: 1, videoIds: [7], start: "2026-11-01 00:00:00", end: "2026-11-02 00:00:00", tz: "UTC" };

/** The figures a seller reads and the raw sums behind them. */
export async function figures(ch: Ch) {
  const one = async (query: string) => (await q.rows<Record<string, number | string>>(ch, { query, query_params: {} }))[0]!;
  const [overview] = await readMetrics(ch, SCOPE, { kind: "video" }, { durations: new Map([[7, 600]]), storedMasks: true });
  const summary = (await q.rows<q.SummaryRow>(ch, summarySql(SCOPE)))[0];
  return {
    sessions: await one("SELECT count() AS n, sum(watched_s) AS watched, sum(flags) AS flags FROM analytics_sessions FINAL"),
    slots: await one("SELECT count() AS n, sum(watched_s) AS watched FROM analytics_session_slots FINAL"),
    sales: await one("SELECT count() AS n, sum(amount) AS amount FROM analytics_sales"),
    events: await one("SELECT count() AS n FROM events"),
    overview: {
      impressions: Number(overview?.impressions ?? 0),
      plays: Number(overview?.plays ?? 0),
      watch_played_s: Number(overview?.watch_played_s ?? 0),
      orders: overview?.orders ?? null,
      revenue: overview?.revenue ?? null,
    },
    summary: { plays: Number(summary?.plays ?? 0), watched: Number(summary?.watch_total_s ?? 0) },
  };
}
