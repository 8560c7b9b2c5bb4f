/**
 * Sealed periods (0013_rollups.sql): the summary's facts and retention's bucket counts of
 * the played sessions of each video, per hour of session start once the hour is over by
 * SEAL_LAG_MS, and per UTC day once its hours are. A read of thirty days merges about
 * thirty day rows and the hours at its edges per video, and reads sessions only for the
 * hours not sealed yet (README "How fresh, how exact").
 *
 * `sealRollups` runs in every worker's sweeper; any number of processes may run it at
 * once. Each seal writes its rows under a new generation and reads take each period's
 * latest, so sealing a period again replaces it. A seal covers the hours from the last
 * mark to the cutoff and the days they complete, then seals again the older hours (and
 * their days) that rows reached since the last run began (analytics_rollup_dirty), then
 * records its mark: a reader that sees a mark finds every period below it sealed.
 */
import { randomBytes } from "node:crypto";
import type { Deps } from "../../deps.ts";
import { BOUNCE_MAX_WATCH_S } from "./definitions.ts";
import { rows, type Scope, SESSION_WHERE, scopeParams, type Sql } from "./queries.ts";

/** An hour is sealed this long after it ends: most sessions that started in it are over. */
export const SEAL_LAG_MS = 2 * 3_600_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** A session's stored 100-bucket mask as one 0/1 count per bucket (0005_retention_mask.sql). */
const MASK_COUNTS = "arrayMap(i -> toUInt64(bitAnd(bitShiftRight(mask100, i), toUInt128(1))), range(100))";

/** A played session's viewer: its device, or the session alone without one (as the summary has always counted). */
const VIEWER = "if(device_hash = 0, (1, session_hash), (0, device_hash))";

/**
 * The summary's facts of played sessions, as aggregates over analytics_sessions rows.
 * Distinct viewers are a HyperLogLog state with 2^17 cells (uniqCombined64: exact up to a
 * few thousand, then within about half a percent), so whole days merge in milliseconds.
 */
const SUMMARY_FACTS = `count() AS plays, uniqCombined64State(17)(${VIEWER}) AS viewers, countIf(completed = 1) AS completions,
  sum(watched_s) AS watch_s, countIf(watched_s < {bounce_s:Float64} AND completed = 0) AS bounces`;

const COLUMNS = "workspace_id, video_id, grain, period, generation, sealed_at, plays, viewers, completions, watch_s, bounces, buckets";

/** The hour rows of the played sessions in `where`. */
function sealHoursSql(where: string): string {
  return `INSERT INTO analytics_rollups (${COLUMNS})
SELECT workspace_id, video_id, 'hour', toStartOfHour(started) AS hour, {generation:UInt64}, now64(3), ${SUMMARY_FACTS}, sumForEach(${MASK_COUNTS})
FROM analytics_sessions FINAL
WHERE ${where} AND bitTest(flags, 1)
GROUP BY workspace_id, video_id, hour`;
}

/** The latest generation of each period of `grain` that `where` selects: a period sealed twice counts once. */
const latest = (where: string) => `(video_id, grain, period, generation) IN (
      SELECT video_id, grain, period, argMax(generation, sealed_at) FROM analytics_rollups WHERE ${where} GROUP BY video_id, grain, period)`;

/** The day rows merged from the (latest) hour rows that `where` selects. */
function sealDaysSql(where: string): string {
  const hours = `grain = 'hour' AND ${where}`;
  return `INSERT INTO analytics_rollups (${COLUMNS})
SELECT workspace_id, video_id, 'day', toStartOfDay(period) AS day, {generation:UInt64}, now64(3), sum(plays), uniqCombined64MergeState(17)(viewers),
  sum(completions), sum(watch_s), sum(bounces), sumForEach(buckets)
FROM analytics_rollups
WHERE ${hours} AND ${latest(hours)}
GROUP BY workspace_id, video_id, day`;
}

const at = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");
const msOf = (text: string) => Date.parse(`${text.replace(" ", "T")}Z`);

/** Seals the periods that are due and seals again those that got rows since; returns the hours it covered (the sweeper logs it). */
export async function sealRollups(deps: Deps): Promise<number> {
  const [state] = await rows<{ now: string; through: string; last_run: string }>(deps.ch, {
    query: "SELECT toString(now64(3)) AS now, toString(max(sealed_through)) AS through, toString(max(run_started)) AS last_run FROM analytics_rollup_marks",
    query_params: {},
  });
  const from = msOf(state!.through);
  const cutoff = Math.floor((deps.clock.now() - SEAL_LAG_MS) / HOUR_MS) * HOUR_MS;
  const through = Math.max(cutoff, from);
  const generation = randomBytes(8).readBigUInt64BE().toString();
  const base = { generation, bounce_s: BOUNCE_MAX_WATCH_S };
  const dayOf = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
  // Hours below the last mark that rows reached since the last run began (a second of slack: sealing twice is harmless).
  const dirty = await rows<{ workspace_id: string; video_id: string; at: string }>(deps.ch, {
    query: `SELECT DISTINCT workspace_id, video_id, toString(hour) AS at FROM analytics_rollup_dirty
WHERE changed_at >= toDateTime64({last_run:String}, 3, 'UTC') - 1 AND hour < toDateTime({from:String}, 'UTC')`,
    query_params: { last_run: state!.last_run, from: at(from) },
  });
  // The bounds let the primary key skip the rest; the keys pick the periods.
  const bounds = (column: string, width: number) => `workspace_id IN {ws_ids:Array(UInt64)} AND video_id IN {video_ids:Array(UInt64)}
  AND ${column} >= toDateTime({first:String}, 'UTC') AND ${column} < toDateTime({last:String}, 'UTC') + ${width}`;
  const keyOf = (start: string) => `concat(toString(workspace_id), ':', toString(video_id), ':', toString(${start})) IN {keys:Array(String)}`;
  const hours = dirty.length ? dirty.map((d) => msOf(d.at)) : [0];
  const dirtyParams = {
    ...base,
    ws_ids: [...new Set(dirty.map((d) => d.workspace_id))],
    video_ids: [...new Set(dirty.map((d) => d.video_id))],
    first: at(dayOf(Math.min(...hours))),
    last: at(Math.max(...hours)),
    keys: dirty.map((d) => `${d.workspace_id}:${d.video_id}:${d.at}`),
  };
  if (dirty.length)
    await deps.ch.command({ query: sealHoursSql(`${bounds("started", 3600)} AND ${keyOf("toStartOfHour(started)")}`), query_params: dirtyParams });
  if (cutoff > from) {
    const span = { ...base, from: at(from), to: at(cutoff) };
    await deps.ch.command({
      query: sealHoursSql("started >= toDateTime({from:String}, 'UTC') AND started < toDateTime({to:String}, 'UTC')"),
      query_params: span,
    });
  }
  // The days these hours complete, then the whole days the late hours fall in (after their hours, so a day takes their new rows).
  const days = { ...base, from: at(dayOf(from)), to: at(dayOf(cutoff)) };
  if (days.to > days.from)
    await deps.ch.command({ query: sealDaysSql("period >= toDateTime({from:String}, 'UTC') AND period < toDateTime({to:String}, 'UTC')"), query_params: days });
  const lateDays = [...new Set(dirty.filter((d) => dayOf(msOf(d.at)) < dayOf(from)).map((d) => `${d.workspace_id}:${d.video_id}:${at(dayOf(msOf(d.at)))}`))];
  if (lateDays.length)
    await deps.ch.command({
      query: sealDaysSql(`${bounds("period", 86400)} AND ${keyOf("toStartOfDay(period)")}`),
      query_params: { ...dirtyParams, keys: lateDays },
    });
  const written = Math.max(0, (cutoff - from) / HOUR_MS) + dirty.length;
  await deps.ch.insert({ table: "analytics_rollup_marks", values: [{ sealed_through: at(through), run_started: state!.now }], format: "JSONEachRow" });
  sealedThrough.set(deps.ch, { value: through, readAt: deps.clock.now() });
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
  const value = msOf(row!.through);
  sealedThrough.set(deps.ch, { value, readAt: now });
  return value;
}

export const sealedParam = (sealedUntilMs: number) => ({ sealed: at(sealedUntilMs) });

/**
 * The sealed periods a window [start, end) takes whole: the hours from the first hour
 * boundary at or after its start to the last at or before its end, below the mark
 * `{sealed}` (read as SESSION_WHERE reads the window, so both agree on every zone's
 * midnight), as whole UTC days where they cover one and hours at the edges. Rollups are
 * cut in UTC, so the bounds are taken there (toStartOfHour and toStartOfDay cut in the
 * time zone of their argument). An empty span
 * (nothing sealed yet, a window inside one hour) leaves every session to the read.
 */
const SPAN_FROM = "toStartOfHour(toTimeZone(toDateTime({start:String}, {tz:String}), 'UTC') + 3599)";
const SPAN_TO = "least(toStartOfHour(toTimeZone(toDateTime({end:String}, {tz:String}), 'UTC')), toDateTime({sealed:String}, 'UTC'))";
const DAYS_FROM = `toStartOfDay(${SPAN_FROM} + 86399)`;
const DAYS_TO = `toStartOfDay(${SPAN_TO})`;
const PERIODS = `workspace_id = {ws:UInt64} AND video_id IN {videos:Array(UInt64)} AND (
      (grain = 'day' AND period >= ${DAYS_FROM} AND period < ${DAYS_TO})
      OR (grain = 'hour' AND period >= ${SPAN_FROM} AND period < ${SPAN_TO} AND NOT (period >= ${DAYS_FROM} AND period < ${DAYS_TO})))`;
const SEALED = `${PERIODS} AND ${latest(PERIODS)}`;

/** The window's played sessions outside its sealed hours. `where` selects the window's sessions (SESSION_WHERE). */
const unsealed = (where: string) => `${where} AND bitTest(flags, 1) AND NOT (started >= ${SPAN_FROM} AND started < ${SPAN_TO})`;

/**
 * Retention of the default 100 buckets from the sealed periods of the window plus its
 * sessions outside them, one row per video: played sessions and, per bucket, those that
 * watched it.
 */
export function sealedRetentionSql(where: string, params: Record<string, unknown>): Sql {
  return {
    query: `
SELECT video_id, sum(n) AS sessions, sumForEach(counts) AS counts
FROM (
  SELECT video_id, plays AS n, buckets AS counts FROM analytics_rollups WHERE ${SEALED}
  UNION ALL
  SELECT video_id, count() AS n, sumForEach(${MASK_COUNTS}) AS counts FROM analytics_sessions FINAL WHERE ${unsealed(where)} GROUP BY video_id
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

/** The summary per video (definitions.ts: play ... bounce) from the sealed periods of the window plus its other sessions; columns as queries.ts SummaryRow. */
function sealedSummarySql(params: Record<string, unknown>): Sql {
  return {
    query: `
SELECT video_id, sum(plays) AS plays, least(uniqCombined64Merge(17)(viewers), plays) AS unique_plays, sum(completions) AS completion_count,
  sum(watch_s) AS watch_total_s, sum(bounces) AS bounce_count
FROM (
  SELECT video_id, plays, viewers, completions, watch_s, bounces FROM analytics_rollups WHERE ${SEALED}
  UNION ALL
  SELECT video_id, ${SUMMARY_FACTS} FROM analytics_sessions FINAL WHERE ${unsealed(SESSION_WHERE)} GROUP BY video_id
)
GROUP BY video_id`,
    query_params: { ...params, bounce_s: BOUNCE_MAX_WATCH_S },
  };
}

/** The summary of a scope's videos, reading sessions for the hours from `sealedUntilMs` on (0: every session). */
export function summarySql(s: Scope, sealedUntilMs = 0): Sql {
  return sealedSummarySql({ ...scopeParams(s), ...sealedParam(sealedUntilMs) });
}
