/**
 * A fresh ClickHouse with the schema applied up to, not including, migration `version`
 * (for upgrade tests). `target` is what engines' freshClickHouse() gave: a path for
 * chDB, or the URL of an empty database on CLICKHOUSE_URL's server.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { type Ch, connectClickHouse, splitStatements } from "../../server/storage/clickhouse.ts";
import { BLANK_EVENT } from "./event-rows.ts";
import { readMetrics } from "../../server/api/analytics/metrics.ts";
import type * as q from "../../server/api/analytics/queries.ts";

export async function schemaBefore(target: string, version: string): Promise<Ch> {
  const dir = join(import.meta.dir, "..", "..", "server", "storage", "clickhouse");
  const ch = await connectClickHouse(/^https?:\/\//.test(target) ? { url: target, embeddedPath: "" } : { embeddedPath: target });
  await ch.command({
    query:
      "CREATE TABLE IF NOT EXISTS schema_migrations (version String, applied_at DateTime64(3) DEFAULT now64(3)) ENGINE = ReplacingMergeTree ORDER BY version",
  });
  for (const file of (await readdir(dir)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort()) {
    if (file >= version) break;
    for (const statement of splitStatements(await Bun.file(join(dir, file)).text())) await ch.command({ query: statement });
    await ch.insert({ table: "schema_migrations", values: [{ version: file.replace(/\.sql$/, "") }], format: "JSONEachRow" });
  }
  return ch;
}

/** A player event row of video 7 in workspace 1, as the ingest writes it (for upgrade tests). */
export const eventRow = (session: string, type: string, at: string, extra: Record<string, unknown> = {}) => ({
  ...BLANK_EVENT,
  workspace_id: 1,
  video_id: 7,
  video_code: "v7",
  event_type: type,
  event_id: crypto.randomUUID(),
  session_code: session,
  device_id: `d-${session}`,
  created_at: at,
  ...extra,
});

/** A stretch from `from` to `to` seconds that a session watched, on the 600 s video 7 (for upgrade tests). */
export const watchedRow = (session: string, at: string, from: number, to: number) =>
  eventRow(session, "watched", at, { video_time: from, watch_seconds: to - from, properties: { duration_s: "600" } });

/** A verified sale of `value` USD, written straight into `events` as versions before 0006 did. */
export const legacySale = (session: string, at: string, eventId: string, value: number) =>
  eventRow(session, "conversion", at, { event: "purchase", event_id: eventId, value, properties: { source: "api", currency: "USD" } });

/** The seller overview's counts of video 7 on 2026-11-01, as numbers (`durations`: the videos' lengths, for the masks). */
export async function overviewOfVideo7(ch: Ch, durations = new Map<number, number>([[7, 600]])) {
  const scope: q.Scope = { workspaceId: 1, videoIds: [7], start: "2026-11-01 00:00:00", end: "2026-11-02 00:00:00", tz: "UTC" };
  const [row] = await readMetrics(ch, scope, { kind: "video" }, { durations, storedMasks: true });
  const n = (k: keyof NonNullable<typeof row>) => Number(row?.[k] ?? 0);
  return {
    impressions: n("impressions"),
    plays: n("plays"),
    autoplays: n("autoplays"),
    unmutes: n("unmutes"),
    leads: n("leads"),
    watch_played_s: n("watch_played_s"),
    row,
  };
}

/** Waits (up to 10 s) until no mutation of the slot table is left to run: an upgrade's rewrite of older parts has finished. */
export async function slotMutationsDone(ch: Ch): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const [open] = await (
      await ch.query({
        query: "SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND table = 'analytics_session_slots' AND NOT is_done",
        format: "JSONEachRow",
      })
    ).json<{ n: string }>();
    if (Number(open!.n) === 0) return;
    await Bun.sleep(50);
  }
}
