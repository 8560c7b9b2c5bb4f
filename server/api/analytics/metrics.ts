/**
 * The seller metrics of definitions.ts ("Seller overview") as SQL over the per-session
 * rows of `analytics_session_slots` (0006_seller_analytics.sql) and the deduplicated
 * sales, grouped by any key of a session: its video (the overview, the workspace
 * overview, the overview export), a dimension of the breakdowns (source, device, ...) or
 * the split-test variation it was served. Every value travels in `query_params`.
 *
 * Two queries per read, run together by `readMetrics`: the sessions' metrics per group
 * (`metricsSql`), which lists each group's sessions that have a sale, and the sales
 * of the scope (`salesSql`), which `attributeSales` adds to their sessions' groups. A
 * scalar of sales inside the metrics query would be planned and run once for each place
 * it is used. `groupMetrics` turns a row, with the ad spend, into the wire shape.
 */
import type { Ch } from "../../storage/clickhouse.ts";
import { type CurrencyMetrics, type GroupMetrics, STARTUP_QUANTILES } from "./definitions.ts";

export type { CurrencyMetrics, GroupMetrics };
import {
  rangeMaskSql,
  round,
  rows,
  salesByKey,
  salesParams,
  SESSION_WHERE,
  STORED_MASK_BUCKETS,
  type Scope,
  setBitCounts,
  type Sql,
  WHERE,
} from "./queries.ts";

/** What a breakdown groups sessions by: one value per session (`analytics_sessions`, 0011_session_start.sql). */
export const DIMENSIONS = {
  /** utm_source when the landing page had one, else the referrer's host (`source`, 0009_source.sql), else `direct`. */
  source: "if(source != '', source, 'direct')",
  utm_source: "utm_source",
  utm_medium: "utm_medium",
  utm_campaign: "utm_campaign",
  referrer_host: "referrer_host",
  device: "device",
  browser: "browser",
  os: "os",
  country: "country",
} as const;
export type Dimension = keyof typeof DIMENSIONS;
export const DIMENSION_NAMES = Object.keys(DIMENSIONS) as Dimension[];

/**
 * A group key: the session's video, one of its dimensions, or the split-test variation it
 * was served (`<test id>:<variation id>`, 0008_split_tests.sql; with `daily`, `|` and the
 * local date it started). Grouped by variation, a session's sales are those traced
 * to it whichever of the test's videos they credit.
 */
export type GroupBy = { kind: "video" } | { kind: "dimension"; dimension: Dimension } | { kind: "split_test"; daily: boolean };

function groupSql(group: Exclude<GroupBy, { kind: "video" }>): string {
  if (group.kind === "dimension") return DIMENSIONS[group.dimension];
  return group.daily ? "concat(split_test, '|', toString(toDate(started, {tz:String})))" : "split_test";
}

/** The bits of a session's `flags` (0010_session_flags.sql). */
export const SESSION_FLAGS = { loaded: 0, played: 1, autoplayed: 2, unmuted: 3, lead: 4 } as const;

/** Durations and mask choice of retention (queries.ts: durationSql, storedMasksHold). */
export interface MaskPlan {
  durations: Map<number, number>;
  storedMasks: boolean;
}

/**
 * One row per session of the scope that started in the window and was shown the player
 * (definitions.ts "Impression"), with `g`, its group value: `analytics_sessions`
 * (0011_session_start.sql) read with FINAL, which merges a session's rows not yet merged
 * in the background and costs nothing on merged parts. FINAL filters after merging, so a
 * session is shown when any of its rows was. Its watched mask is the 100-bucket one of
 * retention: the stored one when every row was written with the video's duration, else
 * built from its ranges over D. `bought`: the scope has a sale row with its session (any
 * sale: attributeSales keeps the counted ones). `extra` and `salesExtra`: more conditions on
 * the sessions and on those sales (` AND ...`).
 */
export function sessionsSql(group: GroupBy, masks: MaskPlan, extra = "", salesExtra = ""): string {
  const g = group.kind === "video" ? "" : `${groupSql(group)} AS g, `;
  // Straight from the table: a subquery level costs more to plan than the whole read of a small video.
  return `
  SELECT ${g}workspace_id, ${sessionColumns(masks.storedMasks ? "mask100" : undefined)},
    session_hash IN (SELECT session_hash FROM analytics_sales WHERE ${WHERE} AND session_hash != 0${salesExtra}) AS bought
  FROM analytics_sessions FINAL
  WHERE ${SESSION_WHERE} AND ${SHOWN}${extra}`;
}

/** A session's viewer in analytics_sessions: its device, or the session itself without one (64-bit hashes: a clash is vanishingly unlikely). */
export const VIEWER_HASH = "if(device_hash = 0, session_hash, device_hash)";

/** A session was shown the player: it loaded, played or autoplayed. */
export const SHOWN = `bitAnd(flags, ${(1 << SESSION_FLAGS.loaded) | (1 << SESSION_FLAGS.played) | (1 << SESSION_FLAGS.autoplayed)}) != 0`;

/**
 * The facts of an `analytics_sessions` row that METRICS aggregate, under their names there.
 * `mask`: the column of its watched buckets; without, they are built from its ranges over
 * each video's duration (`{n}`, `{dur_ids}`, `{durs}`: maskParams).
 */
export function sessionColumns(mask?: string): string {
  const d = "transform(video_id, {dur_ids:Array(UInt64)}, {durs:Array(Float64)}, toFloat64(0))";
  const rowMask = mask ?? `if(${d} > 0, ${rangeMaskSql("toFloat64({n:UInt32})", d, "UInt128")}, toUInt128(0))`;
  const flag = (name: keyof typeof SESSION_FLAGS) => `bitTest(flags, ${SESSION_FLAGS[name]})`;
  return `video_id AS video, session_hash,
    ${flag("played")} AS play, ${flag("autoplayed")} AS auto, ${flag("unmuted")} AS unmute, ${flag("lead")} AS lead_form,
    cta_cards AS cta, watched_s AS watched, ${VIEWER_HASH} AS viewer_hash, startup_ms AS startup, stall_ms AS stall, errors AS errs,
    ${rowMask} AS watched_mask`;
}

/** Each metric: its aggregate over sessions, and (for a top-N) how partial groups merge. */
export const METRICS: { name: string; agg: string; state?: string; merge: string }[] = [
  { name: "impressions", agg: "count()", merge: "sum" },
  { name: "plays", agg: "countIf(play)", merge: "sum" },
  { name: "autoplays", agg: "countIf(auto)", merge: "sum" },
  { name: "unmutes", agg: "countIf(auto AND unmute)", merge: "sum" },
  {
    name: "unique_viewers",
    agg: "uniqExact(viewer_hash)",
    state: "uniqExactState(viewer_hash)",
    merge: "uniqExactMerge",
  },
  { name: "watch_played_s", agg: "sumIf(watched, play)", merge: "sum" },
  { name: "buckets_played", agg: "sumIf(bitCount(watched_mask), play)", merge: "sum" },
  // Card index -> sessions that clicked it, from each session's bitmask of cards.
  {
    name: "cta_clicks",
    agg: `sumMapIf(${setBitCounts("cta")}, cta != 0)`,
    merge: "sumMap",
  },
  { name: "leads", agg: "countIf(lead_form)", merge: "sum" },
  { name: "startup_count", agg: "countIf(startup > 0)", merge: "sum" },
  {
    name: "startup_q",
    agg: `quantilesExactIf(${STARTUP_QUANTILES})(startup, startup > 0)`,
    state: `quantilesExactIfState(${STARTUP_QUANTILES})(startup, startup > 0)`,
    merge: `quantilesExactIfMerge(${STARTUP_QUANTILES})`,
  },
  { name: "stall_ms", agg: "sum(stall)", merge: "sum" },
  { name: "watch_all_s", agg: "sum(watched)", merge: "sum" },
  { name: "errors", agg: "sum(errs)", merge: "sum" },
  // For the split-test goal "cta_click" (a session is one trial).
  { name: "cta_sessions", agg: "countIf(cta != 0)", merge: "sum" },
  // The sessions with a sale row, for attributeSales: [video id, session hash, played].
  { name: "buyers", agg: "groupArrayIf((video, session_hash, play), bought)", merge: "groupArrayArray" },
];

const maskParams = (masks: MaskPlan) => {
  const ids = [...masks.durations.keys()];
  return { n: STORED_MASK_BUCKETS, dur_ids: ids, durs: ids.map((id) => masks.durations.get(id)!) };
};

/**
 * The metrics per group, in one query, without sales (attributeSales adds them). With
 * `top`, the `top` groups with the most impressions (ties by key) keep their own row and
 * every other group is merged into one row with `other` = 1 (its distinct viewers and
 * startup quantiles merged exactly, from aggregate states).
 */
export function metricsSql(s: Scope, group: GroupBy, masks: MaskPlan, top?: number): Sql {
  const g = group.kind === "video" ? "toString(video)" : "g";
  const params = { ...salesParams(s), ...maskParams(masks), top: top ?? 0 };
  if (top === undefined) {
    return {
      query: `SELECT ${g} AS g, 0 AS other, ${METRICS.map((m) => `${m.agg} AS ${m.name}`).join(", ")}
FROM (${sessionsSql(group, masks)})
GROUP BY g`,
      query_params: params,
    };
  }
  return {
    query: `SELECT if(rank <= {top:UInt32}, g, '') AS value, rank > {top:UInt32} AS other, ${METRICS.map((m) => `${m.merge}(${m.name}) AS ${m.name}`).join(", ")}
FROM (
  SELECT ${g} AS g, ${METRICS.map((m) => `${m.state ?? m.agg} AS ${m.name}`).join(", ")}, row_number() OVER (ORDER BY count() DESC, g) AS rank
  FROM (${sessionsSql(group, masks)})
  GROUP BY g
)
GROUP BY value, other
ORDER BY other, impressions DESC, value`,
    query_params: params,
  };
}

/**
 * The scope's verified, non-test sales, one row each (`sale_hash` 0: traced to no session): what
 * the groups and the overview count. `extra`: more conditions on the sales rows (salesByKey's).
 */
export function salesSql(s: Scope, extra = ""): Sql {
  return {
    query: `SELECT video_id, sale_hash, sale_currency AS currency, amount
FROM (${salesByKey(extra)})
WHERE is_verified AND NOT is_test`,
    query_params: salesParams(s),
  };
}

export interface SaleRow {
  video_id: string | number;
  sale_hash: string;
  /** "" when none was sent. */
  currency: string;
  amount: number;
}

/** Orders and revenue per currency. */
export type Sales = Pick<MetricsRow, "orders" | "revenue">;

/** Adds `more`'s orders and revenue to `to`'s, per currency; returns `to`. */
export function addSales(to: Sales, more: { orders: Record<string, number | string>; revenue: Record<string, number | string> }): Sales {
  for (const [currency, n] of Object.entries(more.orders)) to.orders[currency] = (to.orders[currency] ?? 0) + Number(n);
  for (const [currency, v] of Object.entries(more.revenue)) to.revenue[currency] = (to.revenue[currency] ?? 0) + Number(v);
  return to;
}

function addSale(to: Sales, sale: SaleRow) {
  to.orders[sale.currency] = (to.orders[sale.currency] ?? 0) + 1;
  to.revenue[sale.currency] = (to.revenue[sale.currency] ?? 0) + Number(sale.amount);
}

/** Every sale of each video, traced to a session or not: the overview's sales. */
export function salesByVideo(sales: SaleRow[]): Map<number, Sales> {
  const byVideo = new Map<number, Sales>();
  for (const sale of sales) {
    const id = Number(sale.video_id);
    const into = byVideo.get(id) ?? { orders: {}, revenue: {} };
    addSale(into, sale);
    byVideo.set(id, into);
  }
  return byVideo;
}

/**
 * Adds to each group the sales of its sessions (`buyers`): `orders` and `revenue` per
 * currency, `played_orders` (sales of sessions that played) and `played_buyers`
 * (sessions that played and bought). A session's sales are those of its video, or,
 * grouped by split-test variation, those of any of the scope's videos (a test's sale
 * may credit another of its videos).
 */
export function attributeSales<Row extends MetricsRow>(groups: Row[], sales: SaleRow[], group: GroupBy): Row[] {
  const bySessionAlone = group.kind === "split_test";
  const keyOf = (video: string | number, session: string) => (bySessionAlone ? session : `${video}:${session}`);
  // One entry per key: a session's sales, and (keyed by session alone) those of its sessions on several videos.
  const sold = new Map<string, Sales & { n: number }>();
  for (const sale of sales) {
    if (Number(sale.sale_hash) === 0) continue;
    const key = keyOf(sale.video_id, sale.sale_hash);
    const into = sold.get(key) ?? { n: 0, orders: {}, revenue: {} };
    into.n += 1;
    addSale(into, sale);
    sold.set(key, into);
  }
  const add = (to: Record<string, number>, from: Record<string, number>) => {
    for (const [currency, v] of Object.entries(from)) to[currency] = (to[currency] ?? 0) + v;
  };
  return groups.map((row) => {
    const orders: Record<string, number> = {};
    const revenue: Record<string, number> = {};
    let playedOrders = 0;
    let playedBuyers = 0;
    for (const [video, session, played] of row.buyers ?? []) {
      const found = sold.get(keyOf(video, session));
      if (!found) continue;
      add(orders, found.orders);
      add(revenue, found.revenue);
      if (Number(played)) {
        playedOrders += found.n;
        playedBuyers += 1;
      }
    }
    return { ...row, orders, revenue, played_orders: playedOrders, played_buyers: playedBuyers };
  });
}

/**
 * The metrics per group with their sales (metricsSql and salesSql, run together).
 * `sales`: the scope's sales when the caller has read them already.
 */
export async function readMetrics(
  ch: Ch,
  s: Scope,
  group: GroupBy,
  masks: MaskPlan | Promise<MaskPlan>,
  top?: number,
  sales: Promise<SaleRow[]> = rows<SaleRow>(ch, salesSql(s)),
): Promise<MetricsRow[]> {
  const [groups, sold] = await Promise.all([Promise.resolve(masks).then((plan) => rows<MetricsRow>(ch, metricsSql(s, group, plan, top))), sales]);
  return attributeSales(groups, sold, group);
}

export interface MetricsRow {
  /** The group key (video id as text, or the dimension's value); `value` in a top-N. */
  g?: string;
  value?: string;
  other: number | boolean;
  impressions: number;
  plays: number;
  autoplays: number;
  unmutes: number;
  unique_viewers: number;
  watch_played_s: number;
  buckets_played: number;
  cta_clicks: Record<string, number>;
  leads: number;
  startup_count: number;
  startup_q: number[];
  stall_ms: number;
  watch_all_s: number;
  errors: number;
  cta_sessions: number;
  /** The group's sessions with a sale row: [video id, session hash, played] (metricsSql). */
  buyers?: [string | number, string, number | boolean][];
  /** From attributeSales: verified, non-test sales and their revenue per currency ("" for none sent). */
  orders: Record<string, number>;
  revenue: Record<string, number>;
  played_orders: number;
  played_buyers: number;
}

/** Ad spend of a group in one currency (server/api/ad-spend). */
export interface SpendRow {
  currency: string;
  amount: number;
}

/** A rate, or null when its denominator is zero (definitions.ts). */
const rate = (num: number, den: number, places = 4): number | null => (den ? round(num / den, places) : null);

/**
 * The wire metrics of one group. `hasDuration`: the video's duration is known, so the
 * share watched means something; `sales`: the group's sales when not the row's own
 * (the overview's, salesByVideo); `spend`: its ad spend per currency (undefined: ROAS
 * does not apply to this grouping).
 */
export function groupMetrics(row: MetricsRow | undefined, hasDuration: boolean, sales?: Sales, spend?: SpendRow[]): GroupMetrics {
  const n = (v: unknown) => Number(v ?? 0);
  const impressions = n(row?.impressions);
  const plays = n(row?.plays);
  const autoplays = n(row?.autoplays);
  const unmutes = n(row?.unmutes);
  const viewers = n(row?.unique_viewers);
  const watchAll = n(row?.watch_all_s);
  const startups = n(row?.startup_count);
  const spent = new Map<string, number>();
  for (const s of spend ?? []) spent.set(s.currency, (spent.get(s.currency) ?? 0) + Number(s.amount));
  const byCurrency = new Map<string, { orders: number; revenue: number }>();
  const sold = sales ?? row;
  for (const [currency, orders] of Object.entries(sold?.orders ?? {})) {
    if (n(orders) > 0) byCurrency.set(currency, { orders: n(orders), revenue: n(sold?.revenue?.[currency]) });
  }
  for (const currency of spent.keys()) if (!byCurrency.has(currency)) byCurrency.set(currency, { orders: 0, revenue: 0 });
  const revenue = [...byCurrency.entries()]
    .map(([currency, c]): CurrencyMetrics => {
      const money = round(c.revenue, 2);
      const adSpend = spend ? (spent.has(currency) ? round(spent.get(currency)!, 2) : null) : null;
      return {
        currency: currency === "" ? null : currency,
        orders: c.orders,
        revenue: money,
        aov: rate(c.revenue, c.orders, 2),
        rpv: rate(c.revenue, viewers, 2),
        epc: rate(c.revenue, impressions, 2),
        ad_spend: adSpend,
        roas: adSpend === null ? null : rate(c.revenue, adSpend, 2),
      };
    })
    .sort((a, b) => b.revenue - a.revenue || (a.currency ?? "~").localeCompare(b.currency ?? "~"));
  const orders = [...byCurrency.values()].reduce((sum, c) => sum + c.orders, 0);
  const [p50, p95] = (row?.startup_q ?? []).map(Number);
  return {
    impressions,
    plays,
    play_rate: rate(plays, impressions),
    autoplays,
    unmutes,
    unmute_rate: rate(unmutes, autoplays),
    unique_viewers: viewers,
    unique_viewers_exact: true,
    avg_watch_time_s: rate(n(row?.watch_played_s), plays, 2),
    // 100 buckets: each one watched is one percent of the video.
    avg_percent_watched: hasDuration ? rate(n(row?.buckets_played), plays, 2) : null,
    cta_clicks: Object.entries(row?.cta_clicks ?? {})
      .map(([card, sessions]) => ({ card_index: Number(card), sessions: Number(sessions) }))
      .filter((c) => c.sessions > 0)
      .sort((a, b) => a.card_index - b.card_index),
    leads: n(row?.leads),
    orders,
    conversion_rate: rate(n(row?.played_orders), plays),
    revenue,
    startup_time_ms: { p50: startups ? p50! : null, p95: startups ? p95! : null },
    rebuffer_ratio: rate(n(row?.stall_ms) / 1000, watchAll),
    errors: n(row?.errors),
  };
}
