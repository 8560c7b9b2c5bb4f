/**
 * The seller metrics (metrics.ts) from sealed hours and days (0015_group_rollups.sql):
 * the overview and the workspace overview (dimension 'video'), the breakdowns (a
 * dimension of metrics.ts DIMENSIONS), split-test reports ('split_test',
 * 0018_split_test_rollups.sql) and the videos' own sales ('sales'). rollups.ts seals these
 * rows beside the summary's, with the same generations, marks and dirty hours.
 *
 * A read merges the sealed periods its window takes whole (periods.ts) with the window's
 * other sessions, read as metrics.ts reads them, in one query. Money sealed with a session
 * is kept per 15-minute slot of the sale, so the read counts the sales made inside its
 * window, as metrics.ts does; the sales of the sessions it reads itself are attributed by
 * metrics.ts attributeSales. Distinct viewers are merged bitmaps of their numbers
 * (viewer-ordinals.ts), exact; startup quantiles come from the kept times of small rows,
 * else from t-digests.
 */
import { STARTUP_QUANTILES } from "./definitions.ts";
import { addSales, DIMENSIONS, type GroupBy, type MaskPlan, METRICS, type MetricsRow, salesSql, sessionColumns, sessionsSql, SHOWN } from "./metrics.ts";
import {
  DAY_PERIODS,
  HOUR_PERIODS,
  inSalesWindow,
  latest,
  outsideSealed,
  PERIODS,
  RUN_STARTED,
  type Sealed,
  sealedParam,
  UNSEALED_SALES_FROM,
} from "./periods.ts";
import { salesByKey, salesParams, type Scope, SESSION_WHERE, type Sql } from "./queries.ts";
import { BITMAP_KEY, withOrdinals } from "./viewer-ordinals.ts";

const agg = (name: string) => METRICS.find((m) => m.name === name)!.agg;

/** A sealed row keeps its startup times while it holds at most this many (README "How fresh, how exact"). */
const EXACT_STARTUPS_UP_TO = 256;

/**
 * Each fact of a group: its aggregate over sessions (metricsSql's columns), how hour rows
 * merge into a day row keeping a state, and how rows merge into the answer; `seal` and
 * `day`, where a sealed row keeps less than the read of its sessions would.
 */
const FACTS: { name: string; agg: string; state: string; final: string; seal?: string; day?: string }[] = [
  ...["impressions", "plays", "autoplays", "unmutes"].map((name) => ({ name, agg: agg(name), state: "sum", final: "sum" })),
  // Distinct viewers: a bitmap of their numbers (viewer-ordinals.ts), exact.
  { name: "viewer_bitmap", agg: `groupBitmapState(${BITMAP_KEY})`, state: "groupBitmapMergeState", final: "groupBitmapMerge" },
  ...["watch_played_s", "buckets_played"].map((name) => ({ name, agg: agg(name), state: "sum", final: "sum" })),
  { name: "cta_clicks", agg: agg("cta_clicks"), state: "sumMap", final: "sumMap" },
  { name: "leads", agg: agg("leads"), state: "sum", final: "sum" },
  { name: "startup_count", agg: agg("startup_count"), state: "sum", final: "sum" },
  // The startup times themselves while a row holds few: a read whose rows all kept them answers exactly.
  {
    name: "startups",
    agg: "groupArrayIf(startup, startup > 0)",
    seal: `if(countIf(startup > 0) <= ${EXACT_STARTUPS_UP_TO}, groupArrayIf(startup, startup > 0), [])`,
    day: `if(sum(startup_count) <= ${EXACT_STARTUPS_UP_TO}, groupArrayArray(startups), [])`,
    state: "groupArrayArray",
    final: "groupArrayArray",
  },
  // And always a t-digest of them: mergeable in a few kilobytes, its quantiles within a fraction of a percent.
  {
    name: "startups_digest",
    agg: `quantilesTDigestStateIf(${STARTUP_QUANTILES})(startup, startup > 0)`,
    state: `quantilesTDigestMergeState(${STARTUP_QUANTILES})`,
    final: `quantilesTDigestMerge(${STARTUP_QUANTILES})`,
  },
  ...["stall_ms", "watch_all_s", "errors", "cta_sessions"].map((name) => ({ name, agg: agg(name), state: "sum", final: "sum" })),
];

/** Money traced to a group's sessions, per `<sale slot>|<currency>`, whenever the sale was made. */
const MONEY = ["orders", "revenue", "played_orders"] as const;

/** What a 'split_test' row keeps besides (0018_split_test_rollups.sql): the videos its sales credit, and each played buyer's sale times. */
const SPLIT_TEST_FACTS = "sale_videos, played_buyer_sales";

/**
 * What a split test's row per variation and day has besides its key (the report's series:
 * split-tests/report.ts armOf, whatever the goal): its distinct viewers, startup times,
 * CTA clicks per card and money would cost the read as much as its variation's again (a
 * state per day row, merged twice), and the series does not show them.
 */
const SERIES_FACTS = ["impressions", "plays", "cta_sessions", "played_orders"];

/** The format of the rows this release seals: 3 has the viewers' bitmaps (0020_viewer_bitmaps.sql refuses older rows). */
const SEAL_FORMAT = 3;

const COLUMNS = `workspace_id, video_id, dimension, value, grain, period, generation, sealed_at, ${FACTS.map((f) => f.name).join(", ")}, ${MONEY.join(", ")}, ${SPLIT_TEST_FACTS}, seal_format`;

/** The 15-minute slot (UTC) and currency of a sale: the key of the money maps. */
const saleKey = (at: string, currency: string) => `concat(toString(toStartOfFifteenMinutes(toDateTime(${at}))), '|', ${currency})`;

/**
 * The verified, non-test sales of the sessions in `sessions` (a subquery of their
 * workspace_id, video_id, session_hash), each counted by its verified row as queries.ts
 * salesByKey counts it, whenever it was made: per video and session, or with `anyVideo`
 * per session whichever video the sale credits (a split test's sessions, with those
 * videos): orders and revenue per sale key, and the sales' times.
 */
export function salesOfSessions(sessions: string, anyVideo = false): string {
  const group = anyVideo ? "workspace_id, sale_hash" : "video_id, sale_hash";
  const scope = anyVideo ? "workspace_id" : "workspace_id, video_id";
  return `
    SELECT ${group}, sumMap(map(k, toUInt64(1))) AS orders, sumMap(map(k, amount)) AS revenue, arrayFlatten(groupArray(times)) AS times${anyVideo ? ", groupUniqArray(video_id) AS videos" : ""}
    FROM (
      SELECT workspace_id, video_id, max(verified) AS v, argMax(test, verified) AS t, maxIf(amount, verified) AS amount, argMax(session_hash, verified) AS sale_hash,
        ${saleKey("minIf(created_at, verified)", "argMax(currency, verified)")} AS k, groupArrayIf(created_at, verified) AS times
      FROM analytics_sales
      WHERE (${scope}) IN (SELECT DISTINCT ${scope} FROM (${sessions}))
        AND session_hash IN (SELECT session_hash FROM (${sessions}))
      GROUP BY workspace_id, video_id, sale_key
    )
    WHERE v AND NOT t AND sale_hash != 0
    GROUP BY ${group}`;
}

/**
 * The hour rows of every group of the shown sessions in `where` (rows of analytics_sessions,
 * by `started`). A 'split_test' row (sessions served a variation) takes its sessions' sales
 * of any video, as a report counts them.
 */
export function sealGroupHoursSql(where: string): string {
  const dims = [`('video', toString(video_id))`, ...Object.entries(DIMENSIONS).map(([name, sql]) => `('${name}', ${sql})`), "('split_test', split_test)"].join(
    ", ",
  );
  const keys = `SELECT workspace_id, video_id, session_hash FROM analytics_sessions WHERE ${where}`;
  const tested = "dv.1 = 'split_test'";
  const money = (own: string, any: string) => `if(${tested}, ${any}, ${own})`;
  return `INSERT INTO analytics_group_rollups (${COLUMNS})
SELECT workspace_id, video_id, dv.1 AS dimension, dv.2 AS value, 'hour', hour, {generation:UInt64}, ${RUN_STARTED},
  ${FACTS.map((f) => f.seal ?? f.agg).join(", ")}, sumMap(${money("sold", "sold_any")}), sumMap(${money("paid", "paid_any")}),
  sumMapIf(${money("sold", "sold_any")}, play), groupUniqArrayArrayIf(sale_videos, ${tested}), groupArrayIf(sale_times, ${tested} AND play AND notEmpty(sale_times)),
  ${SEAL_FORMAT}
FROM (
  SELECT sb.*, a.orders AS sold_any, a.revenue AS paid_any, a.videos AS sale_videos, a.times AS sale_times
  FROM (
    SELECT s.*, b.orders AS sold, b.revenue AS paid
    FROM (${withOrdinals(
      `SELECT workspace_id, video_id, toStartOfHour(started) AS hour, ${Object.keys(DIMENSIONS).join(", ")}, split_test, ${sessionColumns("mask100")}
      FROM analytics_sessions FINAL
      WHERE ${where} AND ${SHOWN}`,
      where,
    )}) AS s
    LEFT JOIN (${salesOfSessions(keys)}) AS b ON s.video_id = b.video_id AND s.session_hash = b.sale_hash
  ) AS sb
  LEFT JOIN (${salesOfSessions(`${keys} AND split_test != ''`, true)}) AS a ON sb.workspace_id = a.workspace_id AND sb.session_hash = a.sale_hash
)
-- Sessions served no variation have no 'split_test' row.
ARRAY JOIN arrayFilter(d -> d.1 != 'split_test' OR d.2 != '', [${dims}]) AS dv
GROUP BY workspace_id, video_id, dimension, value, hour`;
}

/**
 * The hour rows of each video's own sales made in `where` (rows of analytics_sales, by
 * `created_at`), traced to a session or not. A sale's rows merge within the hour; its
 * verified rows are one write (the ledger deduplicates postbacks), so they share it.
 */
export function sealSalesHoursSql(where: string): string {
  return `INSERT INTO analytics_group_rollups (workspace_id, video_id, dimension, value, grain, period, generation, sealed_at, orders, revenue, seal_format)
SELECT workspace_id, video_id, 'sales', '', 'hour', hour, {generation:UInt64}, ${RUN_STARTED}, sumMap(map(k, toUInt64(1))), sumMap(map(k, amount)), ${SEAL_FORMAT}
FROM (
  SELECT workspace_id, video_id, toStartOfHour(toDateTime(created_at)) AS hour, max(verified) AS v, argMax(test, verified) AS t,
    maxIf(amount, verified) AS amount, ${saleKey("minIf(created_at, verified)", "argMax(currency, verified)")} AS k
  FROM analytics_sales
  WHERE ${where}
  GROUP BY workspace_id, video_id, hour, sale_key
)
WHERE v AND NOT t
GROUP BY workspace_id, video_id, hour`;
}

/** The blocks of rows merged from `rows` (periods.ts familyRows). */
export function sealGroupBlocksSql(rows: string): string {
  return `INSERT INTO analytics_group_rollups (${COLUMNS})
SELECT workspace_id, video_id, dimension, value, level, block, {generation:UInt64}, ${RUN_STARTED},
  ${FACTS.map((f) => f.day ?? `${f.state}(${f.name})`).join(", ")}, ${MONEY.map((m) => `sumMap(${m})`).join(", ")},
  groupUniqArrayArray(sale_videos), groupArrayArray(played_buyer_sales), ${SEAL_FORMAT}
FROM (${rows})
GROUP BY workspace_id, video_id, dimension, value, level, block`;
}

/** The latest rows of the sealed periods (`periods`: periods.ts PERIODS or HOUR_PERIODS) of the dimensions `{dimensions}`. */
const sealedRows = (periods: string) => {
  const rows = `dimension IN {dimensions:Array(String)} AND ${periods}`;
  return `${rows} AND ${latest(rows, "analytics_group_rollups")}`;
};
/** The latest rows of the sealed periods that the window takes whole. */
const SEALED = sealedRows(PERIODS);

/**
 * A breakdown reads a few thousand rows, each with a distinct-viewer state of up to 96 KiB:
 * too few rows for ClickHouse to split the read between threads by default, though merging
 * the states is most of its time. Split, a breakdown of the growth bench's 100M events
 * (bench/analytics.bench.ts) reads 5 to 10 % faster on two cores.
 */
const CONCURRENT_READ = "merge_tree_min_rows_for_concurrent_read = 256, merge_tree_min_bytes_for_concurrent_read = 1";

/** The group of a video's own sales in the rows of groupRollupSql by video: `sold:<video id>`. */
export const OWN_SALES = "sold:";

/** A money map's sales made inside the window, per currency. */
const inWindow = (m: string) => {
  const utc = (local: string) => `toString(toTimeZone(toDateTime({${local}:String}, {tz:String}), 'UTC'))`;
  return `mapApply((k, v) -> (substring(k, 21), v), mapFilter((k, v) -> substring(k, 1, 19) >= ${utc("start")} AND substring(k, 1, 19) < ${utc("end")}, ${m}))`;
};

/**
 * The metrics per group (video, dimension value or split-test variation) from the sealed
 * periods and the other sessions of the window; with `top`, as metricsSql's top-N.
 * Columns: metricsSql's, with `viewers` merged, `startup_q` (exact while every row kept
 * its startup times, else from their digests), the money of the sealed sessions per
 * currency, and `buyers` (of the sessions read). Per variation also `sealed_played_buyers`
 * (the sealed played sessions with a sale in the window) and `foreign` (a sealed sale
 * credits a video outside the scope: the caller reads every session instead). With
 * `daily`, the rows per variation and local day and those per variation; sealed hours
 * stand for days outside UTC (the caller checks that they fit: periods.ts hoursFitLocalDays).
 * By video, also a row `sold:<video id>` per video with sales in the sealed periods: its
 * own sales made in them and in the window (`orders`, `revenue`; its facts are zeros).
 */
export function groupRollupSql(s: Scope, group: GroupBy, masks: MaskPlan, sealed: Sealed, top?: number): Sql {
  const dimension = group.kind === "video" ? "video" : group.kind === "split_test" ? "split_test" : group.dimension;
  const g = group.kind === "video" ? "toString(video)" : "g";
  const daily = group.kind === "split_test" && group.daily;
  // A series per day reads days and hours (a block would cross its days); outside UTC, hours alone.
  const rows = daily ? sealedRows(s.tz !== "UTC" ? HOUR_PERIODS : DAY_PERIODS) : SEALED;
  const tested = group.kind === "split_test";
  const unsealedSessions = sessionsSql(group, masks, ` AND ${outsideSealed("started")}`, ` AND created_at >= ${UNSEALED_SALES_FROM}`);
  // By video, the 'sales' rows ride along (their facts are zeros): each video's own sales in sealed periods, in a group of their own.
  const sealedGroup = daily
    ? "concat(value, '|', toString(toDate(period, {tz:String})))"
    : group.kind === "video"
      ? `if(dimension = 'sales', concat('${OWN_SALES}', toString(video_id)), value)`
      : "value";
  const union = `
  SELECT ${sealedGroup} AS g, ${FACTS.map((f) => f.name).join(", ")},
    ${MONEY.map((m) => `${inWindow(m)} AS ${m}`).join(", ")}, CAST([], 'Array(Tuple(UInt64, UInt64, UInt8))') AS buyers,
    ${tested ? `toUInt64(arrayCount(ts -> arrayExists(t -> ${inSalesWindow("t")}, ts), played_buyer_sales))` : "toUInt64(0)"} AS sealed_played_buyers,
    ${tested ? "NOT hasAll({videos:Array(UInt64)}, sale_videos)" : "false"} AS foreign
  FROM analytics_group_rollups WHERE ${rows}
  UNION ALL
  SELECT ${g} AS g, ${FACTS.map((f) => `${f.agg} AS ${f.name}`).join(", ")},
    CAST(map(), 'Map(String, UInt64)'), CAST(map(), 'Map(String, Float64)'), CAST(map(), 'Map(String, UInt64)'), groupArrayIf((video, session_hash, play), bought),
    toUInt64(0), false
  FROM (${withOrdinals(unsealedSessions, `${SESSION_WHERE} AND ${outsideSealed("started")}`)})
  GROUP BY g`;
  // `merge(fn, column)`: an aggregate of the rows; per variation and day (`daily`), only the series' counts
  // (SERIES_FACTS) take every row, the rest merge into the variation's row alone (`total`).
  const merge = (fn: string, column: string) =>
    !daily || SERIES_FACTS.includes(column) ? `${fn}(${column})` : `${fn.replace(/^\w+/, (name) => `${name}If`)}(${column}, total)`;
  const merged = [
    ...FACTS.filter((f) => !f.name.startsWith("startups")).map((f) => `${merge(f.final, f.name)} AS ${f.name}`),
    // quantilesExact over the kept times when every row kept them, as metricsSql computes it; else the digest's, to the millisecond.
    `if(length(${merge("groupArrayArray", "startups")}) = startup_count, arrayReduce('quantilesExact(${STARTUP_QUANTILES})', ${merge("groupArrayArray", "startups")}),
      arrayMap(q -> round(q), ${merge(`quantilesTDigestMerge(${STARTUP_QUANTILES})`, "startups_digest")})) AS startup_q`,
    ...MONEY.map((m) => `${merge("sumMap", m)} AS ${m}`),
    "groupArrayArray(buyers) AS buyers",
    "sum(sealed_played_buyers) AS sealed_played_buyers",
    "max(foreign) AS foreign",
  ];
  const dimensions = group.kind === "video" ? ["video", "sales"] : [dimension];
  const params = { ...salesParams(s), ...sealedParam(sealed), dimensions, top: top ?? 0 };
  if (daily) {
    // Per variation and day and per variation (the report's totals) from one pass over the rows: each row counts
    // in its day and (`total`) in its variation.
    const names = merged.map((m) => m.slice(m.lastIndexOf(" AS ") + 4));
    return {
      query: `SELECT key AS g, 0 AS other, ${names.join(", ")}
FROM (SELECT if(total, splitByChar('|', g)[1], g) AS key, ${merged.join(", ")} FROM (${union}) ARRAY JOIN [false, true] AS total GROUP BY key)`,
      query_params: params,
    };
  }
  if (top === undefined) return { query: `SELECT g, 0 AS other, ${merged.join(", ")} FROM (${union}) GROUP BY g`, query_params: params };
  // The top groups by impressions first (a light pass), so each fact merges once into its row: a distinct-viewer
  // state per shown row, not per value.
  const impressions = `
  SELECT value AS g, impressions FROM analytics_group_rollups WHERE ${SEALED}
  UNION ALL
  SELECT ${g} AS g, count() AS impressions FROM (${unsealedSessions}) GROUP BY g`;
  return {
    query: `WITH ranked AS (SELECT g FROM (${impressions}) GROUP BY g ORDER BY sum(impressions) DESC, g LIMIT {top:UInt32})
SELECT if(g IN ranked, g, '') AS value, g NOT IN ranked AS other, ${merged.join(", ")}
FROM (${union})
GROUP BY value, other
ORDER BY other, impressions DESC, value
SETTINGS ${CONCURRENT_READ}`,
    query_params: params,
  };
}

/** The scope's sales (salesSql's rows) made in the window outside its sealed periods: with the `sold:` rows of groupRollupSql, each video's own sales. */
export function unsealedOwnSalesSql(s: Scope, sealed: Sealed): Sql {
  const sales = salesSql(s, ` AND ${outsideSealed("created_at")}`);
  return { ...sales, query_params: { ...sales.query_params, ...sealedParam(sealed) } };
}

/**
 * The sales rows of the window whose sessions the read takes from analytics_sessions (not
 * sealed), for attributeSales. session_hash is no key of analytics_sales: trying the set
 * on the index made this read three times slower.
 */
export function unsealedSalesSql(s: Scope, sealed: Sealed): Sql {
  const sessions = `SELECT session_hash FROM analytics_sessions WHERE ${SESSION_WHERE} AND ${outsideSealed("started")}`;
  return {
    query: `SELECT video_id, sale_hash, sale_currency AS currency, amount
FROM (${salesByKey(` AND created_at >= ${UNSEALED_SALES_FROM} AND session_hash IN (${sessions})`)})
WHERE is_verified AND NOT is_test
SETTINGS use_index_for_in_with_subqueries = 0`,
    query_params: { ...salesParams(s), ...sealedParam(sealed) },
  };
}

export interface GroupRollupRow extends Omit<MetricsRow, "unique_viewers" | "orders" | "revenue" | "played_orders"> {
  /** Its distinct viewers (the cardinality of the merged bitmaps). */
  viewer_bitmap: number | string;
  orders: Record<string, number | string>;
  revenue: Record<string, number | string>;
  played_orders: Record<string, number | string>;
  sealed_played_buyers: number | string;
  foreign: number | boolean;
}

/** The sales of a row's sealed sessions, which attributeSales does not see. */
type SealedSales = Pick<GroupRollupRow, "orders" | "revenue" | "played_orders" | "sealed_played_buyers">;

/** A row of groupRollupSql as metricsSql's, with the money of its sealed sessions kept aside (addSealedSales). */
export function metricsOfRollupRow(row: GroupRollupRow): MetricsRow & { sealed: SealedSales } {
  const { viewer_bitmap: viewers, orders, revenue, played_orders, sealed_played_buyers, foreign: _, ...rest } = row;
  return {
    ...rest,
    unique_viewers: Number(viewers),
    orders: {},
    revenue: {},
    played_orders: 0,
    played_buyers: 0,
    sealed: { orders, revenue, played_orders, sealed_played_buyers },
  };
}

/** Adds the money of the sealed sessions to a row whose read sessions' sales attributeSales added. */
export function addSealedSales(row: MetricsRow & { sealed: SealedSales }): MetricsRow {
  const { sealed, ...rest } = row;
  const { orders, revenue } = addSales({ orders: { ...rest.orders }, revenue: { ...rest.revenue } }, sealed);
  const played = Object.values(sealed.played_orders).reduce<number>((sum, v) => sum + Number(v), 0);
  return { ...rest, orders, revenue, played_orders: rest.played_orders + played, played_buyers: rest.played_buyers + Number(sealed.sealed_played_buyers) };
}
