/**
 * Sealed periods (0013_rollups.sql): the summary's facts and retention's bucket counts of
 * the played sessions of each video, and of those with a sale (0017_rollup_buyers.sql, for
 * the curves of buyers and non-buyers), per hour of session start once the hour is over by
 * SEAL_LAG_MS, per UTC day once its hours are, and per block of hours and days as it
 * completes (periods.ts FAMILIES). A read of thirty days merges about eight blocks per
 * video, and reads sessions only for the hours not sealed yet (README "How fresh, how exact").
 *
 * `sealRollups` runs in every worker's sweeper; any number of processes may run it at
 * once. Each seal writes its rows under a new generation and reads take each period's
 * latest, so sealing a period again replaces it. A seal covers the hours from the last
 * mark to the cutoff and the blocks they complete, then seals again the older hours (and
 * the blocks holding them) that rows reached since the last run began
 * (analytics_rollup_dirty), then records its mark: a reader that sees a mark finds every
 * period below it sealed.
 */
import { randomBytes } from "node:crypto";
import type { Deps } from "../../deps.ts";
import { BOUNCE_MAX_WATCH_S } from "./definitions.ts";
import { LOCAL_SUFFIX } from "../../storage/clickhouse-ddl.ts";
import {
  at,
  blocksOf,
  completing,
  FAMILIES,
  familyRows,
  inSalesWindow,
  latest,
  msOf,
  NOTHING_SEALED,
  outsideSealed,
  PERIODS,
  RUN_STARTED,
  SALES_END,
  SALES_START,
  SEALED_TABLES,
  type Sealed,
  type SealedTable,
  SPAN_BOUNDS_SQL,
  sealedParam,
  UNSEALED_SALES_FROM,
} from "./periods.ts";
import { salesOfSessions, sealGroupBlocksSql, sealGroupHoursSql, sealSalesHoursSql } from "./group-rollups.ts";
import { BITMAP_KEY, numberViewers, withOrdinals } from "./viewer-ordinals.ts";
import { VIEWER_HASH } from "./metrics.ts";
import { buyerSessions, rows, type Scope, type Segment, SESSION_WHERE, scopeParams, setBitCounts, type Sql, storedBucketCounts } from "./queries.ts";

/**
 * An hour is sealed this long after it ends: most sessions that started in it are over (a
 * sales video rarely runs an hour). At 100M events a month on one video an unsealed hour
 * adds 5–40 ms to a read (a breakdown the most), while sealing an hour again for a session
 * still watching (a webinar) costs 2–4 s, once a minute while it does, most of it the
 * lightweight deletes of pruneSuperseded.
 */
export const SEAL_LAG_MS = 3_600_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * The summary's facts of played sessions, as aggregates over rows of analytics_sessions
 * with their viewers' numbers (viewer-ordinals.ts withOrdinals): distinct viewers are a
 * bitmap of those numbers, exact, and whole days merge in milliseconds.
 */
const SUMMARY_FACTS = `count() AS plays, groupBitmapState(${BITMAP_KEY}) AS viewer_bitmap, countIf(completed = 1) AS completions,
  sum(watched_s) AS watch_s, countIf(watched_s < {bounce_s:Float64} AND completed = 0) AS bounces`;

const COLUMNS = `workspace_id, video_id, grain, period, generation, sealed_at, plays, viewer_bitmap, completions, watch_s, bounces, buckets,
  buyers, buyer_buckets, buyer_sales_from, buyer_sales_to, buyer_masks, seal_format`;

/** The format of the rows this release seals: 3 has the viewers' bitmaps (0020_viewer_bitmaps.sql refuses older rows). */
const SEAL_FORMAT = 3;

/** The hour rows of the played sessions in `where`, with those of them that have sales (the buyers of a window holding a sale). */
function sealHoursSql(where: string): string {
  const bought = "notEmpty(sales)";
  // The buckets are counted from each mask's set bits (queries.ts setBitCounts), made dense once per hour.
  return `INSERT INTO analytics_rollups (${COLUMNS})
SELECT workspace_id, video_id, 'hour', hour, {generation:UInt64}, ${RUN_STARTED}, plays, viewer_bitmap, completions, watch_s, bounces, ${storedBucketCounts("watched")},
  buyers, if(buyers > 0, ${storedBucketCounts("buyers_watched")}, []), buyer_sales_from, buyer_sales_to, buyer_masks, ${SEAL_FORMAT}
FROM (
  SELECT workspace_id, video_id, toStartOfHour(started) AS hour, ${SUMMARY_FACTS}, sumMap(${setBitCounts("mask100")}) AS watched,
    countIf(${bought}) AS buyers, sumMapIf(${setBitCounts("mask100")}, ${bought}) AS buyers_watched,
    minIf(arrayMin(sales), ${bought}) AS buyer_sales_from, maxIf(arrayMax(sales), ${bought}) AS buyer_sales_to, groupArrayIf((mask100, sales), ${bought}) AS buyer_masks
  FROM (
    SELECT s.*, b.times AS sales
    FROM (${withOrdinals(
      `SELECT workspace_id, video_id, started, session_hash, ${VIEWER_HASH} AS viewer_hash, completed, watched_s, mask100
      FROM analytics_sessions FINAL
      WHERE ${where} AND bitTest(flags, 1)`,
      where,
    )}) AS s
    LEFT JOIN (${salesOfSessions(`SELECT workspace_id, video_id, session_hash FROM analytics_sessions WHERE ${where}`)}) AS b
      ON s.video_id = b.video_id AND s.session_hash = b.sale_hash
  )
  GROUP BY workspace_id, video_id, hour
)`;
}

/** The blocks of rows merged from `rows` (periods.ts familyRows). */
function sealBlocksSql(rows: string): string {
  return `INSERT INTO analytics_rollups (${COLUMNS})
SELECT workspace_id, video_id, level, block, {generation:UInt64}, ${RUN_STARTED}, sum(plays), groupBitmapMergeState(viewer_bitmap),
  sum(completions), sum(watch_s), sum(bounces), sumForEach(buckets),
  sum(buyers), sumForEachIf(buyer_buckets, buyers > 0), minIf(buyer_sales_from, buyers > 0), maxIf(buyer_sales_to, buyers > 0), groupArrayArray(buyer_masks), ${SEAL_FORMAT}
FROM (${rows})
GROUP BY workspace_id, video_id, level, block`;
}

/** What a seal writes first: hour rows from source rows whose time is `column` (then the blocks, from those). */
const HOUR_SEALS: { column: string; sql: (where: string) => string }[] = [
  { column: "started", sql: sealHoursSql },
  { column: "started", sql: sealGroupHoursSql },
  { column: "created_at", sql: sealSalesHoursSql },
];
const BLOCK_SEALS: [SealedTable, (rows: string) => string][] = [
  ["analytics_rollups", sealBlocksSql],
  ["analytics_group_rollups", sealGroupBlocksSql],
];

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
  const base = { generation, run: state!.now, bounce_s: BOUNCE_MAX_WATCH_S };
  const dayOf = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
  const dirty = await dirtyHours(deps, state!.last_run, at(from));
  // The bounds let the primary key skip the rest; the keys pick the periods.
  const bounds = (column: string, width: number) => `workspace_id IN {ws_ids:Array(UInt64)} AND video_id IN {video_ids:Array(UInt64)}
  AND ${column} >= toDateTime({first:String}, 'UTC') AND ${column} < toDateTime({last:String}, 'UTC') + ${width}`;
  const keyOf = (start: string) => `concat(toString(workspace_id), ':', toString(video_id), ':', toString(${start})) IN {keys:Array(String)}`;
  const dirtyParams = (keys: { workspace_id: string; video_id: string; at: string }[]) => ({
    ...base,
    ws_ids: [...new Set(keys.map((d) => d.workspace_id))],
    video_ids: [...new Set(keys.map((d) => d.video_id))],
    first: at(dayOf(Math.min(...keys.map((d) => msOf(d.at))))),
    last: at(Math.max(...keys.map((d) => msOf(d.at)))),
    keys: keys.map((d) => `${d.workspace_id}:${d.video_id}:${d.at}`),
  });
  const span = { ...base, from: at(from), to: at(cutoff) };
  const dirtyWhere = (c: string) => `${bounds(c, 3600)} AND ${keyOf(`toStartOfHour(toDateTime(${c}))`)}`;
  const spanWhere = (c: string) => `${c} >= toDateTime({from:String}, 'UTC') AND ${c} < toDateTime({to:String}, 'UTC')`;
  // The viewers of these hours get their numbers first, so their bitmaps hold numbers only.
  if (dirty.length) await numberViewers(deps, dirtyWhere("started"), dirtyParams(dirty));
  if (cutoff > from) await numberViewers(deps, spanWhere("started"), span);
  for (const seal of HOUR_SEALS) {
    const c = seal.column;
    if (dirty.length) await deps.ch.command({ query: seal.sql(dirtyWhere(c)), query_params: dirtyParams(dirty) });
    if (cutoff > from) await deps.ch.command({ query: seal.sql(spanWhere(c)), query_params: span });
  }
  // Then the blocks, days from the hours and longer blocks from the days: those these hours complete, then those
  // holding an hour sealed again that were complete before (after their hours, so each takes their new rows).
  for (const family of FAMILIES) {
    const unitS = family.unitMs / 1000;
    const late = new Map<string, { workspace_id: string; video_id: string; start: number; end: number }>();
    for (const d of dirty)
      for (const { grain, width } of family.levels) {
        const start = family.startMs(msOf(d.at), width);
        if (start === undefined || start + width * family.unitMs > from) continue;
        late.set(`${grain}:${d.workspace_id}:${d.video_id}:${at(start)}`, { ...d, start, end: start + width * family.unitMs });
      }
    const levels = completing(family, from, cutoff);
    const widest = Math.max(0, ...levels.map((l) => l.width)) * family.unitMs;
    for (const [table, seal] of BLOCK_SEALS) {
      if (late.size) {
        const keys = [...late.values()];
        const children = `workspace_id IN {ws_ids:Array(UInt64)} AND video_id IN {video_ids:Array(UInt64)}
    AND period >= toDateTime({first:String}, 'UTC') AND period < toDateTime({last:String}, 'UTC')`;
        const blockKey = "concat(level, ':', toString(workspace_id), ':', toString(video_id), ':', toString(block)) IN {keys:Array(String)}";
        await deps.ch.command({
          query: seal(familyRows(table, family, family.levels, children, blockKey)),
          query_params: {
            ...base,
            ws_ids: [...new Set(keys.map((k) => k.workspace_id))],
            video_ids: [...new Set(keys.map((k) => k.video_id))],
            first: at(Math.min(...keys.map((k) => k.start))),
            last: at(Math.max(...keys.map((k) => k.end))),
            keys: [...late.keys()],
          },
        });
      }
      if (levels.length) {
        // The children of blocks that end after `from` and by `cutoff`: after `from` less the widest block.
        const children = "period > toDateTime({after:String}, 'UTC') AND period < toDateTime({to:String}, 'UTC')";
        const ending = `block + width * ${unitS} > toDateTime({from:String}, 'UTC') AND block + width * ${unitS} <= toDateTime({to:String}, 'UTC')`;
        await deps.ch.command({
          query: seal(familyRows(table, family, levels, children, ending)),
          query_params: { ...base, after: at(Math.max(0, from - widest)), from: at(from), to: at(cutoff) },
        });
      }
    }
  }
  const written = Math.max(0, (cutoff - from) / HOUR_MS) + dirty.length;
  if (written > 0) {
    await pruneSuperseded(deps, base);
    await dropMaskedRows(deps);
  }
  await deps.ch.insert({ table: "analytics_rollup_marks", values: [{ sealed_through: at(through), run_started: state!.now }], format: "JSONEachRow" });
  sealedThrough.set(deps.ch, { value: through, readAt: deps.clock.now() });
  return written;
}

/**
 * Deletes the rows this run superseded: those of older runs for the periods it wrote.
 * Reads take each period's latest generation either way, but a late hour is sealed again
 * every minute while its sessions still send rows, and every superseded row would stay
 * in the table and in the reads' search for the latest. Rows of a later-started run stay.
 * Lightweight deletes; on a cluster each shard deletes from its local table, which holds
 * all of a video's rows.
 */
async function pruneSuperseded(deps: Deps, run: { generation: string; run: string }): Promise<void> {
  for (const query of pruneStatements(deps.config.clickhouseCluster))
    await deps.ch.command({ query, query_params: { generation: run.generation, run: run.run } });
}

/** pruneSuperseded's statements (`{generation}`, `{run}`), in their cluster form with CLICKHOUSE_CLUSTER. */
export function pruneStatements(cluster?: string): string[] {
  return Object.entries(SEALED_TABLES).map(([table, keys]) => {
    const local = cluster ? `${table}${LOCAL_SUFFIX}` : table;
    return `DELETE FROM ${local}${cluster ? ` ON CLUSTER '${cluster}'` : ""}
WHERE sealed_at < ${RUN_STARTED} AND (${keys}) IN (SELECT ${keys} FROM ${local} WHERE generation = {generation:UInt64})`;
  });
}

/**
 * Rewrites the partitions where the rows pruneSuperseded masked reach half the live rows.
 * A lightweight delete only masks rows: they leave a part when a merge rewrites it, which
 * the scheduler seldom does for a month's large part, and until then every read of a
 * sealed period scans them beside the live generation. Rewriting a partition once per half
 * of its live rows masked keeps the reads' scan within 1.5 times the live rows, for at most
 * two rows written per row pruned. On a cluster each host counts its own parts, and a
 * partition over the bound on any host is rewritten on every one (hosts with nothing
 * masked there have nothing to rewrite).
 */
async function dropMaskedRows(deps: Deps): Promise<void> {
  const cluster = deps.config.clickhouseCluster;
  for (const table of Object.keys(SEALED_TABLES) as SealedTable[]) {
    const over = await rows<{ partition: string }>(deps.ch, { query: maskedPartitionsSql(table, cluster), query_params: {} });
    for (const { partition } of over) await deps.ch.command({ query: applyMaskSql(table, partition, cluster), query_params: {} });
  }
}

/**
 * The partitions of `table` (their ids) where masked rows reach half the live ones on some host.
 * Only partitions with a part a delete masked rows in are counted, so the check costs what the
 * last seals touched, not every month of history.
 */
export function maskedPartitionsSql(table: SealedTable, cluster?: string): string {
  const local = cluster ? `${table}${LOCAL_SUFFIX}` : table;
  const everywhere = (source: string) => (cluster ? `clusterAllReplicas('${cluster}', ${source})` : source);
  const parts = `database = currentDatabase() AND table = '${local}' AND active`;
  return `SELECT partition FROM (
  SELECT hostName() AS host, partition_id AS partition, sum(rows) AS stored
  FROM ${everywhere("system.parts")}
  WHERE ${parts}
  GROUP BY host, partition
  HAVING max(has_lightweight_delete)
) AS p
LEFT JOIN (
  SELECT hostName() AS host, _partition_id AS partition, count() AS live
  FROM ${everywhere(local)}
  WHERE _partition_id IN (SELECT partition_id FROM system.parts WHERE ${parts} AND has_lightweight_delete)
  GROUP BY host, partition
) AS l USING (host, partition)
WHERE (stored - live) * 2 >= greatest(live, 1)
GROUP BY partition`;
}

/** Rewrites one partition of `table` without its masked rows, waiting for it (the sweeper's time, not a reader's). */
export function applyMaskSql(table: SealedTable, partition: string, cluster?: string): string {
  const local = cluster ? `${table}${LOCAL_SUFFIX} ON CLUSTER '${cluster}'` : table;
  return `ALTER TABLE ${local} APPLY DELETED MASK IN PARTITION ID '${partition.replace(/\D/g, "")}' SETTINGS mutations_sync = ${cluster ? 2 : 1}`;
}

/**
 * The (video, hour) pairs below `before` that rows reached since the last run began (a
 * second of slack: sealing twice is harmless): hours of session start that got session
 * rows, hours a sale was made in, and the start hours of the sessions those sales are
 * traced to, whichever video a sale credits (a split test's may credit another of its videos).
 */
async function dirtyHours(deps: Deps, lastRun: string, before: string) {
  const since = "changed_at >= toDateTime64({last_run:String}, 3, 'UTC') - 1";
  return rows<{ workspace_id: string; video_id: string; at: string }>(deps.ch, {
    query: `SELECT DISTINCT workspace_id, video_id, toString(hour) AS at FROM (
  SELECT workspace_id, video_id, hour FROM analytics_rollup_dirty WHERE ${since}
  UNION ALL
  SELECT workspace_id, video_id, hour FROM analytics_rollup_sale_dirty WHERE ${since}
  UNION ALL
  SELECT workspace_id, video_id, toStartOfHour(started) AS hour FROM analytics_sessions
  WHERE (workspace_id, session_hash) IN (SELECT workspace_id, session_hash FROM analytics_rollup_sale_dirty WHERE ${since} AND session_hash != 0)
)
WHERE hour < toDateTime({before:String}, 'UTC')`,
    query_params: { last_run: lastRun, before },
  });
}

/** How long a process trusts the mark it read: an older mark only means more hours read from sessions. */
const MARK_TTL_MS = 30_000;
const sealedThrough = new WeakMap<object, { value: number; readAt: number }>();

/** Where windows' sealed spans may start and end, per window and zone: a few hundred dashboards' windows at most. */
const spanBounds = new Map<string, Promise<{ from: number; end: number }>>();
const SPAN_BOUNDS_KEPT = 1_000;

/**
 * A window's sealed span below the mark `until` (0: nothing sealed) and the blocks that tile
 * it (periods.ts blocksOf). ClickHouse turns the window's local midnights into UTC, as it
 * reads the sessions' window, so both agree in every zone; a window's bounds are asked once.
 */
export async function sealedSpan(deps: Deps, w: { start: string; end: string; tz: string }, until: number): Promise<Sealed> {
  if (until === 0) return NOTHING_SEALED;
  const key = `${w.start}|${w.end}|${w.tz}`;
  let bounds = spanBounds.get(key);
  if (!bounds) {
    if (spanBounds.size >= SPAN_BOUNDS_KEPT) spanBounds.clear();
    bounds = rows<{ from_s: string; end_s: string }>(deps.ch, { query: SPAN_BOUNDS_SQL, query_params: { start: w.start, end: w.end, tz: w.tz } }).then(
      ([r]) => ({
        from: Number(r!.from_s) * 1000,
        end: Number(r!.end_s) * 1000,
      }),
    );
    bounds.catch(() => spanBounds.delete(key));
    spanBounds.set(key, bounds);
  }
  const { from, end } = await bounds;
  return { until, blocks: blocksOf(from, Math.min(end, until)) };
}

/** The sealed span of a window as the mark stands (sealedUntil). */
export async function sealedFor(deps: Deps, w: { start: string; end: string; tz: string }): Promise<Sealed> {
  return sealedSpan(deps, w, await sealedUntil(deps));
}

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

const SEALED = `${PERIODS} AND ${latest(PERIODS)}`;

/** The window's played sessions outside its sealed hours. `where` selects the window's sessions (SESSION_WHERE). */
const unsealed = (where: string) => `${where} AND bitTest(flags, 1) AND ${outsideSealed("started")}`;

/** Signed per-video counts: a part of a curve, to add or take away. */
const signed = (sign: 1 | -1, n: string, counts: string) => `${sign} * toInt64(${n}) AS n, arrayMap(c -> ${sign} * toInt64(c), ${counts}) AS counts`;

/** Signed per-video counts of the rows of `source` ("FROM ... WHERE ..."), per bucket those whose 100-bucket `mask` has it. */
const maskedRows = (sign: 1 | -1, mask: string, source: string) => `SELECT video_id, ${signed(sign, "sessions", storedBucketCounts("watched"))}
  FROM (SELECT video_id, count() AS sessions, sumMap(${setBitCounts(mask)}) AS watched ${source} GROUP BY video_id)`;

/**
 * The played sessions outside the sealed periods that buyers (or non-buyers) are: traced
 * to a counted sale of the window, which is made after its session started.
 */
const UNSEALED_BUYERS = buyerSessions(` AND created_at >= ${UNSEALED_SALES_FROM}`);
const unsealedSegment: Record<Segment, string> = {
  all: "",
  buyers: ` AND (video_id, session_hash) IN (${UNSEALED_BUYERS})`,
  non_buyers: ` AND (video_id, session_hash) NOT IN (${UNSEALED_BUYERS})`,
};

/**
 * Retention of the default 100 buckets from the sealed periods of the window plus its
 * sessions outside them, one row per video: played sessions and, per bucket, those that
 * watched it. The buyers of a sealed row whose sales all fall in the window are its sums;
 * of any other, the sessions with a sale in the window. Non-buyers are everyone less them.
 */
export function sealedRetentionSql(where: string, params: Record<string, unknown>, segment: Segment = "all"): Sql {
  const everyone = `SELECT video_id, ${signed(1, "plays", "buckets")} FROM analytics_rollups WHERE ${SEALED}`;
  const inside = `buyer_sales_from >= ${SALES_START} AND buyer_sales_to < ${SALES_END}`;
  const buyers = (sign: 1 | -1) => [
    `SELECT video_id, ${signed(sign, "buyers", "buyer_buckets")} FROM analytics_rollups WHERE ${SEALED} AND buyers > 0 AND ${inside}`,
    maskedRows(
      sign,
      "b.1",
      `FROM analytics_rollups ARRAY JOIN buyer_masks AS b
    WHERE ${SEALED} AND buyers > 0 AND NOT (${inside}) AND arrayExists(t -> ${inSalesWindow("t")}, b.2)`,
    ),
  ];
  const sealed = { all: [everyone], buyers: buyers(1), non_buyers: [everyone, ...buyers(-1)] }[segment];
  // Each session's watched buckets counted from its mask's set bits: half the time and memory of an array of 100 per session.
  const rest = maskedRows(1, "mask100", `FROM analytics_sessions FINAL WHERE ${unsealed(where)}${unsealedSegment[segment]}`);
  return {
    query: `
SELECT video_id, sum(n) AS sessions, sumForEach(counts) AS counts
FROM (
  ${[...sealed, rest].join("\n  UNION ALL\n  ")}
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
SELECT video_id, sum(plays) AS plays, least(groupBitmapMerge(viewer_bitmap), plays) AS unique_plays, sum(completions) AS completion_count,
  sum(watch_s) AS watch_total_s, sum(bounces) AS bounce_count
FROM (
  SELECT video_id, plays, viewer_bitmap, completions, watch_s, bounces FROM analytics_rollups WHERE ${SEALED}
  UNION ALL
  SELECT video_id, ${SUMMARY_FACTS}
  FROM (${withOrdinals(
    `SELECT workspace_id, video_id, ${VIEWER_HASH} AS viewer_hash, completed, watched_s FROM analytics_sessions FINAL WHERE ${unsealed(SESSION_WHERE)}`,
    unsealed(SESSION_WHERE),
  )})
  GROUP BY video_id
)
GROUP BY video_id`,
    query_params: { ...params, bounce_s: BOUNCE_MAX_WATCH_S },
  };
}

/** The summary of a scope's videos from its sealed span (NOTHING_SEALED: every session). */
export function summarySql(s: Scope, sealed: Sealed = NOTHING_SEALED): Sql {
  return sealedSummarySql({ ...scopeParams(s), ...sealedParam(sealed) });
}
