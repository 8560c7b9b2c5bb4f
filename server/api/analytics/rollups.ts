/**
 * Sealed hours (0013_rollups.sql): retention per video and hour of session start, written
 * once an hour is over by SEAL_LAG_MS, so a read of thirty days merges 720 rows per video
 * and reads sessions only for the hours not sealed yet (README "How fresh, how exact").
 *
 * `sealRollups` runs in every worker's sweeper; any number of processes may run it at
 * once. Each seal writes its rows under a new generation and reads take each hour's
 * latest, so sealing an hour again replaces it. A seal covers the hours from the last
 * mark to the cutoff, then seals again the older hours that rows reached since the last
 * run (analytics_rollup_dirty), then records its mark: a reader that sees a mark finds
 * every hour below it sealed.
 */
import { randomBytes } from "node:crypto";
import type { Deps } from "../../deps.ts";
import { rows, type Sql } from "./queries.ts";

/** An hour is sealed this long after it ends: most sessions that started in it are over. */
export const SEAL_LAG_MS = 2 * 3_600_000;
const HOUR_MS = 3_600_000;

/** A session's stored 100-bucket mask as one 0/1 count per bucket (0005_retention_mask.sql). */
export const MASK_COUNTS = "arrayMap(i -> toUInt64(bitAnd(bitShiftRight(mask100, i), toUInt128(1))), range(100))";

/** The rollup row of each video and hour: played sessions that started in it and their bucket counts. */
function sealSql(where: string): string {
  return `INSERT INTO analytics_retention_hours
SELECT workspace_id, video_id, toStartOfHour(started) AS hour, {generation:UInt64}, now64(3), count(), sumForEach(${MASK_COUNTS})
FROM analytics_sessions FINAL
WHERE ${where} AND bitTest(flags, 1)
GROUP BY workspace_id, video_id, hour`;
}

const at = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");

/** Seals the hours that are due and re-seals the sealed hours that changed; returns the hours written. */
export async function sealRollups(deps: Deps): Promise<number> {
  const [state] = await rows<{ now: string; through: string; last_run: string }>(deps.ch, {
    query: `SELECT toString(now64(3)) AS now, toString(max(sealed_through)) AS through, toString(max(run_started)) AS last_run FROM analytics_rollup_marks`,
    query_params: {},
  });
  const from = Date.parse(`${state!.through.replace(" ", "T")}Z`);
  const cutoff = Math.floor((deps.clock.now() - SEAL_LAG_MS) / HOUR_MS) * HOUR_MS;
  const generation = randomBytes(8).readBigUInt64BE().toString();
  let written = 0;
  if (cutoff > from) {
    await deps.ch.command({
      query: sealSql("started >= toDateTime({from:String}, 'UTC') AND started < toDateTime({to:String}, 'UTC')"),
      query_params: { generation, from: at(from), to: at(cutoff) },
    });
    written += (cutoff - from) / HOUR_MS;
  }
  // Hours below the last mark that rows reached since the last run began (a second of slack: sealing twice is harmless).
  const dirty = await rows<{ workspace_id: string; video_id: string; at: string }>(deps.ch, {
    query: `SELECT DISTINCT workspace_id, video_id, toString(hour) AS at FROM analytics_rollup_dirty
WHERE changed_at >= toDateTime64({last_run:String}, 3, 'UTC') - 1 AND hour < toDateTime({from:String}, 'UTC')`,
    query_params: { last_run: state!.last_run, from: at(from) },
  });
  if (dirty.length) {
    // The bounds let the primary key skip the rest; the keys pick the hours.
    const hours = dirty.map((d) => Date.parse(`${d.at.replace(" ", "T")}Z`));
    await deps.ch.command({
      query: sealSql(`workspace_id IN {ws_ids:Array(UInt64)} AND video_id IN {video_ids:Array(UInt64)}
  AND started >= toDateTime({first:String}, 'UTC') AND started < toDateTime({last:String}, 'UTC') + 3600
  AND concat(toString(workspace_id), ':', toString(video_id), ':', toString(toStartOfHour(started))) IN {keys:Array(String)}`),
      query_params: {
        generation,
        ws_ids: [...new Set(dirty.map((d) => d.workspace_id))],
        video_ids: [...new Set(dirty.map((d) => d.video_id))],
        first: at(Math.min(...hours)),
        last: at(Math.max(...hours)),
        keys: dirty.map((d) => `${d.workspace_id}:${d.video_id}:${d.at}`),
      },
    });
    written += dirty.length;
  }
  await deps.ch.insert({
    table: "analytics_rollup_marks",
    values: [{ sealed_through: at(Math.max(cutoff, from)), run_started: state!.now }],
    format: "JSONEachRow",
  });
  sealedThrough.set(deps.ch, { value: Math.max(cutoff, from), readAt: deps.clock.now() });
  return written;
}

/** How long a process trusts the mark it read: an older mark only means more hours read from sessions. */
const MARK_TTL_MS = 30_000;
const sealedThrough = new WeakMap<object, { value: number; readAt: number }>();

/** The hours below this instant are sealed (0 when nothing is). */
export async function sealedUntil(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const cached = sealedThrough.get(deps.ch);
  if (cached && now - cached.readAt < MARK_TTL_MS) return cached.value;
  const [row] = await rows<{ through: string }>(deps.ch, {
    query: "SELECT toString(max(sealed_through)) AS through FROM analytics_rollup_marks",
    query_params: {},
  });
  const value = Date.parse(`${row!.through.replace(" ", "T")}Z`);
  sealedThrough.set(deps.ch, { value, readAt: now });
  return value;
}

/**
 * The sealed hours a window [start, end) takes whole: from the first hour boundary at or
 * after its start to the last at or before its end, below the mark `{sealed}` (as
 * SESSION_WHERE reads the window, so both agree on every zone's midnight). An empty span
 * (nothing sealed yet, a window inside one hour) leaves every session to the read.
 */
const SPAN_FROM = "toStartOfHour(toDateTime({start:String}, {tz:String}) + 3599)";
const SPAN_TO = "least(toStartOfHour(toDateTime({end:String}, {tz:String})), toDateTime({sealed:String}, 'UTC'))";

export const sealedParam = (sealedUntilMs: number) => ({ sealed: at(sealedUntilMs) });

/**
 * Retention of the default 100 buckets from the sealed hours of the window plus its
 * sessions outside them, one row per video: played sessions and, per bucket, those that
 * watched it. `where` selects the window's sessions (SESSION_WHERE).
 */
export function sealedRetentionSql(where: string, params: Record<string, unknown>): Sql {
  const hours = `workspace_id = {ws:UInt64} AND video_id IN {videos:Array(UInt64)} AND hour >= ${SPAN_FROM} AND hour < ${SPAN_TO}`;
  return {
    query: `
SELECT video_id, sum(n) AS sessions, sumForEach(counts) AS counts
FROM (
  SELECT video_id, sessions AS n, buckets AS counts
  FROM analytics_retention_hours
  WHERE ${hours}
    AND (video_id, hour, generation) IN (SELECT video_id, hour, argMax(generation, sealed_at) FROM analytics_retention_hours WHERE ${hours} GROUP BY video_id, hour)
  UNION ALL
  SELECT video_id, count() AS n, sumForEach(${MASK_COUNTS}) AS counts
  FROM analytics_sessions FINAL
  WHERE ${where} AND bitTest(flags, 1) AND NOT (started >= ${SPAN_FROM} AND started < ${SPAN_TO})
  GROUP BY video_id
)
GROUP BY video_id`,
    query_params: params,
  };
}

export interface SealedRetentionRow {
  video_id: number | string;
  sessions: number | string;
  counts: (number | string)[];
}
