/**
 * The ClickHouse SQL of the analytics reads, per definitions.ts. Every value travels
 * in `query_params`; each query takes a list of videos and groups by video_id so the
 * reads (one video) and the exports (up to 50) run the same SQL.
 */
import type { Ch } from "../../storage/clickhouse.ts";

/** Rows of these videos of this workspace, created in [start, end) read as local times in tz. */
export interface Scope {
  workspaceId: number;
  videoIds: number[];
  /** `YYYY-MM-DD 00:00:00`, a local time in `tz`. */
  start: string;
  /** Exclusive, `YYYY-MM-DD 00:00:00` of the day after `to`, local time in `tz`. */
  end: string;
  tz: string;
}

export interface Sql {
  query: string;
  query_params: Record<string, unknown>;
}

export const WHERE = `workspace_id = {ws:UInt64} AND video_id IN {videos:Array(UInt64)}
  AND created_at >= toDateTime64({start:String}, 3, {tz:String}) AND created_at < toDateTime64({end:String}, 3, {tz:String})`;

export function scopeParams(s: Scope): Record<string, unknown> {
  return { ws: s.workspaceId, videos: s.videoIds, start: s.start, end: s.end, tz: s.tz };
}

/**
 * The summary reads `analytics_session_slots` (0003_analytics.sql): one row
 * per session and 15-minute slot, kept from `events` by a materialized view. Local
 * midnights are slot boundaries in every real time zone, so this window is exact.
 */
export const SLOT_WHERE = `workspace_id = {ws:UInt64} AND video_id IN {videos:Array(UInt64)}
  AND slot >= toDateTime({start:String}, {tz:String}) AND slot < toDateTime({end:String}, {tz:String})`;

/** The seller metrics read `analytics_sessions` (0011_session_start.sql): the sessions that started in the window, by their start slot. */
export const SESSION_WHERE = `workspace_id = {ws:UInt64} AND video_id IN {videos:Array(UInt64)}
  AND started >= toDateTime({start:String}, {tz:String}) AND started < toDateTime({end:String}, {tz:String})`;

/**
 * The scope's sales, one row per sale (`analytics_sales`, 0006_seller_analytics.sql):
 * rows sharing a key (a browser row and its verified postback) merge, the verified row
 * winning (definitions.ts "Conversions read"). Columns: video_id, key, is_verified,
 * is_test, name, amount (of the verified row), sale_hash (0 without a session), sale_currency.
 * `extra`: more conditions on the rows (` AND ...`).
 */
export const salesByKey = (extra = "") => `
  SELECT video_id, sale_key AS key, max(verified) AS is_verified, argMax(test, verified) AS is_test, argMax(event_name, verified) AS name,
    maxIf(analytics_sales.amount, verified) AS amount, argMax(session_hash, verified) AS sale_hash, argMax(analytics_sales.currency, verified) AS sale_currency
  FROM analytics_sales
  WHERE ${WHERE}${extra}
  GROUP BY video_id, key`;

export const SALES_BY_KEY = salesByKey();

export const salesParams = (s: Scope) => scopeParams(s);

/** (video_id, session_hash) of the sessions traced to a verified, non-test sale: the buyers. `extra`: as salesByKey's. */
export const buyerSessions = (extra = "") => `SELECT video_id, sale_hash FROM (${salesByKey(extra)}) WHERE is_verified AND NOT is_test AND sale_hash != 0`;
const BUYER_SESSIONS = buyerSessions();

export interface SummaryRow {
  video_id: number;
  plays: number;
  unique_plays: number;
  completion_count: number;
  watch_total_s: number;
  bounce_count: number;
}

export function summaryFromRow(row: SummaryRow | undefined) {
  const plays = Number(row?.plays ?? 0);
  const completions = Number(row?.completion_count ?? 0);
  return {
    plays,
    unique_plays: Number(row?.unique_plays ?? 0),
    completion_count: completions,
    completion_rate: plays ? round(completions / plays, 4) : 0,
    avg_watch_time_s: plays ? round(Number(row?.watch_total_s ?? 0) / plays, 2) : 0,
    bounce_count: Number(row?.bounce_count ?? 0),
  };
}

/**
 * Step 1 of retention: each video's duration D (definitions.ts "Retention"), from the
 * duration facts kept per video and 15-minute slot (`analytics_video_slots`,
 * 0013_rollups.sql): a few thousand rows for any window, however many sessions.
 */
export function durationSql(s: Scope): Sql {
  return {
    query: `
SELECT video_id, if(max(duration_s) > 0, max(duration_s), max(max_end_s)) AS duration,
  min(mask_min_duration_s) = duration AND max(mask_max_duration_s) = duration AS one_duration
FROM analytics_video_slots
WHERE ${SLOT_WHERE}
GROUP BY video_id
HAVING duration > 0`,
    query_params: scopeParams(s),
  };
}

export interface DurationRow {
  video_id: number;
  duration: number;
  /** Every row with watched ranges, merged or not, was written with this duration: the stored masks (0005_retention_mask.sql) hold. */
  one_duration: number | boolean;
}

/** The bucket count whose masks the slots keep (`mask100`, 0005_retention_mask.sql). */
export const STORED_MASK_BUCKETS = 100;

/**
 * The stored buckets (of STORED_MASK_BUCKETS) whose midpoints are those of `buckets`, in
 * order, or undefined: bucket i of N has its midpoint (i + 0.5) / N on stored bucket
 * j = i·k + (k − 1) / 2 when k = 100 / N is a whole odd number (N = 100, 20, 4), so a
 * session watched bucket i exactly when it watched stored bucket j (rangeMaskSql).
 */
export function storedBucketsFor(buckets: number): number[] | undefined {
  const k = STORED_MASK_BUCKETS / buckets;
  if (!Number.isInteger(k) || k % 2 === 0) return undefined;
  return Array.from({ length: buckets }, (_, i) => i * k + (k - 1) / 2);
}

/**
 * A 1 per set bit of a bitmask (`mask`: a card or bucket bitmask column), keyed by the bit:
 * `sumMap` of it counts, per bit, the rows that have it set (sessions per CTA card, per
 * watched bucket), touching only the bits set rather than every bit of every row.
 */
export const setBitCounts = (mask: string) => `mapFromArrays(bitPositionsToArray(${mask}), arrayWithConstant(bitCount(${mask}), toUInt64(1)))`;

/** The STORED_MASK_BUCKETS counts, in order, of a setBitCounts sum (`counts`), with 0 for a bucket no row watched. */
export const storedBucketCounts = (counts: string) => `arrayMap(i -> ${counts}[i], range(toUInt64(${STORED_MASK_BUCKETS})))`;

/** The stored masks hold for the default bucket count when each video's ranges carry one duration. */
export const storedMasksHold = (found: DurationRow[]): boolean => found.every((row) => Number(row.one_duration) === 1);

/**
 * The bitmask of the buckets (of `n`, over a duration `d`) whose midpoints a row's
 * watched ranges cover. 0005_retention_mask.sql stores this for n = 100, d = duration_s.
 */
export function rangeMaskSql(n: string, d: string, mask: "UInt128" | "UInt256"): string {
  const lo = `toInt32(greatest(ceil(r.1 * ${n} / ${d} - 0.5), 0.))`;
  const hi = `toInt32(least(greatest(ceil(r.2 * ${n} / ${d} - 0.5) - 1, -1.), ${n} - 1))`;
  return `arrayFold((acc, r) -> bitOr(acc, if(${hi} >= ${lo},
          CAST(bitShiftLeft(to${mask}(1), ${hi} + 1) - bitShiftLeft(to${mask}(1), ${lo}) AS ${mask}), to${mask}(0))),
        ranges, to${mask}(0))`;
}

/** Whose sessions a retention curve follows (definitions.ts "Buyers against everyone"). */
export const SEGMENTS = ["all", "buyers", "non_buyers"] as const;
export type Segment = (typeof SEGMENTS)[number];

const SEGMENT_FILTER: Record<Segment, string> = {
  all: "",
  buyers: ` AND (video_id, session_hash) IN (${BUYER_SESSIONS})`,
  non_buyers: ` AND (video_id, session_hash) NOT IN (${BUYER_SESSIONS})`,
};

/**
 * Step 2: each session's watched ranges become a bitmask of the buckets whose midpoint
 * (i + 0.5) * D / N they contain (N <= 200 fits a UInt256, N < 128 a cheaper UInt128);
 * for the default N = 100 over videos whose rows all carry the read's D, the mask
 * stored with the session is the same and is read instead. A session's mask is the
 * union of its ranges, so a rewatched bucket counts once. Each run of set bits becomes
 * +1 at its first bucket and -1 after its last; summed per video and position they
 * give, by prefix sum, the sessions per bucket. Position -1 carries the count of played
 * sessions. The played sessions are those that started in the window
 * (`analytics_sessions`, one row each with FINAL), as in the seller overview; the
 * curves of the buckets storedBucketsFor takes are read from sealed hours instead
 * (rollups.ts, service.ts computeRetention).
 */
export function retentionSql(s: Scope, buckets: number, durations: Map<number, number>, storedMasks = false, segment: Segment = "all"): Sql {
  const ids = [...durations.keys()];
  // The top shift is by N, which must stay below the width.
  const mask = buckets < 128 ? "UInt128" : "UInt256";
  const rowMask = storedMasks && buckets === STORED_MASK_BUCKETS ? "mask100" : rangeMaskSql("n", "d", mask);
  return {
    query: `
SELECT video_id, pos, sum(delta) AS delta
FROM (
  SELECT video_id, m,
    bitPositionsToArray(bitAnd(m, bitNot(bitShiftLeft(m, 1)))) AS starts,
    bitPositionsToArray(bitAnd(m, bitNot(bitShiftRight(m, 1)))) AS ends
  FROM (
    SELECT video_id,
      transform(video_id, {dur_ids:Array(UInt64)}, {durs:Array(Float64)}, toFloat64(0)) AS d,
      toFloat64({n:UInt32}) AS n,
      ${rowMask} AS m
    FROM analytics_sessions FINAL
    WHERE ${SESSION_WHERE} AND video_id IN {dur_ids:Array(UInt64)} AND bitTest(flags, 1)${SEGMENT_FILTER[segment]}
  )
)
ARRAY JOIN
  arrayConcat([toInt64(-1)], arrayMap(p -> toInt64(p), starts), arrayMap(p -> toInt64(p) + 1, ends)) AS pos,
  arrayConcat([toInt64(1)], arrayMap(p -> toInt64(1), starts), arrayMap(p -> toInt64(-1), ends)) AS delta
GROUP BY video_id, pos`,
    query_params: { ...(segment === "all" ? scopeParams(s) : salesParams(s)), n: buckets, dur_ids: ids, durs: ids.map((id) => durations.get(id)!) },
  };
}

export interface RetentionRow {
  video_id: number;
  pos: number;
  delta: number;
}

/** Prefix sum of one video's edge deltas: `watch_pct` per bucket (0 everywhere without plays). */
export function bucketsFromRows(rows: RetentionRow[], buckets: number): { bucket_pct: number; watch_pct: number }[] {
  const delta = new Array<number>(buckets + 1).fill(0);
  let sessions = 0;
  for (const row of rows) {
    const pos = Number(row.pos);
    if (pos === -1) sessions = Number(row.delta);
    else delta[pos]! += Number(row.delta);
  }
  let running = 0;
  return Array.from({ length: buckets }, (_, i) => {
    running += delta[i]!;
    return { bucket_pct: round((100 * i) / buckets, 2), watch_pct: sessions ? round(running / sessions, 4) : 0 };
  });
}

/** One video's sealed-hours answer (rollups.ts): `watch_pct` per bucket from played sessions and per-bucket counts. */
export function bucketsFromCounts(sessions: number, counts: number[], buckets: number): { bucket_pct: number; watch_pct: number }[] {
  return Array.from({ length: buckets }, (_, i) => ({
    bucket_pct: round((100 * i) / buckets, 2),
    watch_pct: sessions ? round((counts[i] ?? 0) / sessions, 4) : 0,
  }));
}

/** Conversions per name: counts of every sale, revenue of verified, non-test ones (definitions.ts). */
export function conversionsSql(s: Scope): Sql {
  return {
    query: `
SELECT video_id, name AS event_name, count() AS count, sum(if(is_verified AND NOT is_test, amount, 0)) AS revenue
FROM (${SALES_BY_KEY})
GROUP BY video_id, event_name
ORDER BY video_id, count DESC, event_name`,
    query_params: salesParams(s),
  };
}

export interface ConversionRow {
  video_id: number;
  event_name: string;
  count: number;
  revenue: number;
}

export function conversionFromRow(row: ConversionRow) {
  return { event_name: row.event_name, count: Number(row.count), total_revenue: round(Number(row.revenue), 2) };
}

const EVENT_COLUMNS = `video_id, event_type, event, session_code, watch_seconds, video_time, toUnixTimestamp64Milli(created_at) AS created_ms`;

/** One page of events, newest first. */
export function eventsPageSql(s: Scope, eventType: string | undefined, limit: number, offset: number): Sql {
  return {
    query: `SELECT ${EVENT_COLUMNS} FROM events WHERE ${WHERE}${eventType === undefined ? "" : " AND event_type = {event_type:String}"}
ORDER BY created_at DESC, event_id DESC LIMIT {limit:UInt32} OFFSET {offset:UInt64}`,
    query_params: { ...scopeParams(s), event_type: eventType, limit, offset },
  };
}

export function eventsCountSql(s: Scope, eventType: string | undefined): Sql {
  return {
    query: `SELECT count() AS total FROM events WHERE ${WHERE}${eventType === undefined ? "" : " AND event_type = {event_type:String}"}`,
    query_params: { ...scopeParams(s), event_type: eventType },
  };
}

/** Every event of the scope, oldest first per video: the events export. */
export function eventsExportSql(s: Scope): Sql {
  return {
    query: `SELECT ${EVENT_COLUMNS} FROM events WHERE ${WHERE} ORDER BY video_id, created_at, event_id`,
    query_params: scopeParams(s),
  };
}

/** Rows per video and local day: how the events export cuts its work into bounded slices. */
export function eventDaysSql(s: Scope): Sql {
  return {
    query: `SELECT video_id, toString(toDate(created_at, {tz:String})) AS day, count() AS n FROM events WHERE ${WHERE}
GROUP BY video_id, day ORDER BY video_id, day`,
    query_params: scopeParams(s),
  };
}

export interface EventRow {
  video_id: number;
  event_type: string;
  event: string;
  session_code: string;
  watch_seconds: number;
  video_time: number;
  created_ms: number | string;
}

export function eventFromRow(row: EventRow) {
  return {
    event_type: row.event_type,
    event: row.event === "" ? null : row.event,
    session_code: row.session_code === "" ? null : row.session_code,
    watch_seconds: Number(row.watch_seconds),
    video_time: Number(row.video_time),
    created_at: new Date(Number(row.created_ms)).toISOString(),
    ip_hash: null,
  };
}

export async function rows<T>(ch: Ch, sql: Sql): Promise<T[]> {
  const result = await ch.query({ query: sql.query, query_params: sql.query_params, format: "JSONEachRow" });
  return result.json<T>();
}

/** Streams rows one at a time (JSONEachRow), never holding the whole result. */
export async function* streamRows<T>(ch: Ch, sql: Sql): AsyncGenerator<T> {
  const result = await ch.query({ query: sql.query, query_params: sql.query_params, format: "JSONEachRow" });
  for await (const batch of result.stream()) {
    for (const row of batch as { json<R>(): R }[]) yield row.json<T>();
  }
}

export function round(value: number, places: number): number {
  const f = 10 ** places;
  return Math.round(value * f) / f;
}
