/**
 * The seller's reads beyond the core interface (definitions.ts "Seller overview"): the overview of a
 * video, its breakdowns, and the overview of every video of the workspace. Knows
 * nothing of HTTP; the SQL is in metrics.ts.
 */
import type { Deps } from "../../deps.ts";
import { validation } from "../../errors.ts";
import { normaliseSource, spendOf } from "../ad-spend/service.ts";
import { DEFAULT_WINDOW_DAYS, OVERVIEW_TOP_VALUES } from "./definitions.ts";
import { addSealedSales, type GroupRollupRow, groupRollupSql, metricsOfRollupRow, OWN_SALES, unsealedOwnSalesSql, unsealedSalesSql } from "./group-rollups.ts";
import {
  addSales,
  attributeSales,
  DIMENSION_NAMES,
  type Dimension,
  type GroupBy,
  type GroupMetrics,
  groupMetrics,
  type MaskPlan,
  type MetricsRow,
  readMetrics,
  type SaleRow,
  type Sales,
  salesByVideo,
  salesSql,
  type SpendRow,
} from "./metrics.ts";
import { hoursFitLocalDays, NOTHING_SEALED, type Sealed } from "./periods.ts";
import { sealedSpan, sealedUntil } from "./rollups.ts";
import * as q from "./queries.ts";
import { scopeOf, videoOf } from "./service.ts";
import { intParam, oneOfParam } from "../../http/params.ts";
import { resolveWindow, type Window, type WindowQuery } from "../../http/window.ts";

/** Ad spend of the scope, per video, source and currency (server/api/ad-spend). */
export type Spend = { videoId: number; source: string; currency: string; amount: number }[];

const spendIn = (spend: Spend, keep: (s: Spend[number]) => boolean): SpendRow[] => spend.filter(keep).map((s) => ({ currency: s.currency, amount: s.amount }));

/** Retention's step 1 (queries.ts): each video's duration, and whether the stored masks hold. */
export async function maskPlan(deps: Deps, scope: q.Scope): Promise<MaskPlan> {
  const found = await q.rows<q.DurationRow>(deps.ch, q.durationSql(scope));
  return { durations: new Map(found.map((r) => [Number(r.video_id), Number(r.duration)])), storedMasks: q.storedMasksHold(found) };
}

/**
 * `sealed`: true reads the sealed periods whenever any are, false reads every session
 * (the tests compare both); by default the sealed periods are read once the window holds
 * ROLLUPS_FROM_SESSIONS sessions.
 */
export interface ReadOptions {
  sealed?: boolean;
}

/** Below this many sessions in a window, reading them costs less than merging sealed rows (bench/analytics.bench.ts). */
export const ROLLUPS_FROM_SESSIONS = 20_000;

/** The sealed span the read takes (rollups.ts), or NOTHING_SEALED for a read of every session. */
export async function rollupsUntil(deps: Deps, scope: q.Scope, options: ReadOptions = {}): Promise<Sealed> {
  if (options.sealed === false) return NOTHING_SEALED;
  const until = await sealedUntil(deps);
  const span = sealedSpan(deps, scope, until);
  if (until === 0 || options.sealed === true) return span;
  // Rows, not sessions (a session not merged yet has several): enough to tell a small window from a large one.
  const [[found], sealed] = await Promise.all([
    q.rows<{ n: string }>(deps.ch, { query: `SELECT count() AS n FROM analytics_sessions WHERE ${q.SESSION_WHERE}`, query_params: q.scopeParams(scope) }),
    span,
  ]);
  return Number(found?.n ?? 0) >= ROLLUPS_FROM_SESSIONS ? sealed : NOTHING_SEALED;
}

/** The stored masks whatever they hold: what sealed rows were built from, and enough where the share watched is not read (split tests). */
export const STORED_MASKS: MaskPlan = { durations: new Map(), storedMasks: true };

/**
 * The metrics per group of the scope's sessions, with their sales: from the sealed span
 * `sealed` plus the other sessions (group-rollups.ts) when the stored masks
 * hold, else from every session (metrics.ts). The sealed read starts before the mask plan
 * is known (the masks hold but for a re-encoded video) and is dropped when they do not.
 */
export async function groupRows(
  deps: Deps,
  scope: q.Scope,
  group: GroupBy,
  masks: MaskPlan | Promise<MaskPlan>,
  top: number | undefined,
  sealed: Sealed,
): Promise<GroupRead> {
  const everySession = async (plan: MaskPlan | Promise<MaskPlan>) => ({ rows: await readEverySession(deps, scope, group, plan, top), sealedUntilMs: 0 });
  if (sealed.until === 0) return everySession(masks);
  const read = Promise.all([
    q.rows<GroupRollupRow>(deps.ch, groupRollupSql(scope, group, STORED_MASKS, sealed, top)),
    q.rows<SaleRow>(deps.ch, unsealedSalesSql(scope, sealed)),
  ]);
  const plan = await masks;
  if (!plan.storedMasks) {
    read.catch(() => {});
    return everySession(plan);
  }
  const [found, sold] = await read;
  // A sealed split-test sale of a video the test no longer has: the report's rule (sales of its videos) needs every session.
  if (found.some((r) => Number(r.foreign))) return everySession(plan);
  return { rows: attributeSales(found.map(metricsOfRollupRow), sold, group).map(addSealedSales), sealedUntilMs: sealed.until };
}

/** groupRows' answer: the rows, and the mark below which they took sealed periods (0: they read every session). */
export interface GroupRead {
  rows: MetricsRow[];
  sealedUntilMs: number;
}

/**
 * The metrics of a split test's sessions in the scope (its videos), keyed `<test>:<variation>`,
 * and with `daily` also `<test>:<variation>|<local date>` with the series' counts alone
 * (seriesRow), from the sealed periods where they fit the days.
 */
export async function splitTestRows(deps: Deps, scope: q.Scope, daily: boolean, options: ReadOptions = {}): Promise<MetricsRow[]> {
  const fits = !daily || hoursFitLocalDays(scope.tz, scope.start, scope.end);
  const sealed = fits ? await rollupsUntil(deps, scope, options) : NOTHING_SEALED;
  const { rows } = await groupRows(deps, scope, { kind: "split_test", daily }, STORED_MASKS, undefined, sealed);
  return daily ? rows.map((r) => (r.g?.includes("|") ? seriesRow(r) : r)) : rows;
}

const NO_METRICS: MetricsRow = {
  other: 0,
  impressions: 0,
  plays: 0,
  autoplays: 0,
  unmutes: 0,
  unique_viewers: 0,
  watch_played_s: 0,
  buckets_played: 0,
  cta_clicks: {},
  leads: 0,
  startup_count: 0,
  startup_q: [],
  stall_ms: 0,
  watch_all_s: 0,
  errors: 0,
  cta_sessions: 0,
  orders: {},
  revenue: {},
  played_orders: 0,
  played_buyers: 0,
};

/**
 * A split test's row per variation and day as the report's series reads it: its counts
 * (group-rollups.ts SERIES_FACTS, and the played buyers), the rest zero, whichever way
 * it was read.
 */
function seriesRow(row: MetricsRow): MetricsRow {
  const { g, impressions, plays, cta_sessions, played_orders, played_buyers } = row;
  return { ...NO_METRICS, g, impressions, plays, cta_sessions, played_orders, played_buyers };
}

/** groupRows from every session (metrics.ts); per variation and day, with the rows per variation as groupRollupSql has them. */
async function readEverySession(deps: Deps, scope: q.Scope, group: GroupBy, masks: MaskPlan | Promise<MaskPlan>, top: number | undefined) {
  if (group.kind !== "split_test" || !group.daily) return readMetrics(deps.ch, scope, group, masks, top);
  const [totals, days] = await Promise.all([readMetrics(deps.ch, scope, { ...group, daily: false }, masks), readMetrics(deps.ch, scope, group, masks)]);
  return [...totals, ...days];
}

/**
 * Each video's own sales made in the window (the overview's orders and revenue): `sales`, and
 * the `sold:` rows of a read of sealed periods (those made in them).
 */
function ownSales(sales: SaleRow[], groups: MetricsRow[]): Map<number, Sales> {
  const byVideo = salesByVideo(sales);
  for (const row of groups) {
    if (!row.g?.startsWith(OWN_SALES)) continue;
    const id = Number(row.g.slice(OWN_SALES.length));
    byVideo.set(id, addSales(byVideo.get(id) ?? { orders: {}, revenue: {} }, row));
  }
  return byVideo;
}

/** The metrics of each video of the scope (zeros for a video without sessions). */
export async function computeVideoMetrics(deps: Deps, scope: q.Scope, spend: Spend, options: ReadOptions = {}): Promise<Map<number, GroupMetrics>> {
  const plan = maskPlan(deps, scope);
  const sealed = await rollupsUntil(deps, scope, options);
  // Beside the groups: the sales outside the sealed periods (the groups' `sold:` rows hold the rest), or every sale.
  const sales = q.rows<SaleRow>(deps.ch, sealed.until === 0 ? salesSql(scope) : unsealedOwnSalesSql(scope, sealed));
  sales.catch(() => {});
  const [read, { durations }] = await Promise.all([groupRows(deps, scope, { kind: "video" }, plan, undefined, sealed), plan]);
  // A read of sealed periods that fell back to every session (a re-encoded video) has no `sold:` rows: every sale, then.
  const sold = ownSales(read.sealedUntilMs === sealed.until ? await sales : await q.rows<SaleRow>(deps.ch, salesSql(scope)), read.rows);
  const byVideo = new Map(read.rows.filter((r) => !r.g?.startsWith(OWN_SALES)).map((r) => [Number(r.g), r]));
  return new Map(
    scope.videoIds.map((id) => [
      id,
      groupMetrics(
        byVideo.get(id),
        durations.has(id),
        sold.get(id) ?? { orders: {}, revenue: {} },
        spendIn(spend, (s) => s.videoId === id),
      ),
    ]),
  );
}

export interface BreakdownRow extends GroupMetrics {
  /** The value (null when unknown: no referrer, no utm, an unrecognised User-Agent or IP); null on the `other` row. */
  value: string | null;
  /** The row merging every value past the top OVERVIEW_TOP_VALUES. */
  other: boolean;
}

/** The metrics of one video per value of `by`: the top values by impressions and one `other` row. */
export async function computeBreakdown(deps: Deps, scope: q.Scope, by: Dimension, spend: Spend, options: ReadOptions = {}): Promise<BreakdownRow[]> {
  const plan = maskPlan(deps, scope);
  const sealed = await rollupsUntil(deps, scope, options);
  const [{ rows }, { durations }] = await Promise.all([groupRows(deps, scope, { kind: "dimension", dimension: by }, plan, OVERVIEW_TOP_VALUES, sealed), plan]);
  const hasDuration = scope.videoIds.some((id) => durations.has(id));
  return rows.map((r) => {
    const other = Number(r.other) === 1;
    const value = r.value ?? "";
    // ROAS per traffic source: the spend entered for that source.
    const rowSpend = by === "source" && !other ? spendIn(spend, (s) => s.source === normaliseSource(value)) : undefined;
    return { value: other || value === "" ? null : value, other, ...groupMetrics(r, hasDuration, undefined, rowSpend) };
  });
}

interface VideoRef {
  id: number;
  code: string;
}

function head(video: VideoRef, w: Window) {
  return { video_id: video.id, video_code: video.code, from: w.from, to: w.to, tz: w.tz };
}

export async function overview(deps: Deps, workspaceId: number, videoId: number | undefined, input: WindowQuery) {
  const video = await videoOf(deps, workspaceId, videoId);
  const w = resolveWindow(deps.clock.now(), input, DEFAULT_WINDOW_DAYS);
  const spend = await spendOf(deps, workspaceId, [video.id], w.from, w.to);
  const metrics = await computeVideoMetrics(deps, scopeOf(workspaceId, video.id, w), spend);
  return { ...head(video, w), overview: metrics.get(video.id)! };
}

export interface BreakdownQuery extends WindowQuery {
  by?: string;
}

export async function breakdown(deps: Deps, workspaceId: number, videoId: number | undefined, input: BreakdownQuery) {
  const video = await videoOf(deps, workspaceId, videoId);
  const w = resolveWindow(deps.clock.now(), input, DEFAULT_WINDOW_DAYS);
  const by = oneOfParam(input.by, "by", DIMENSION_NAMES);
  const spend = by === "source" ? await spendOf(deps, workspaceId, [video.id], w.from, w.to) : [];
  const rows = await computeBreakdown(deps, scopeOf(workspaceId, video.id, w), by, spend);
  return { ...head(video, w), by, rows };
}

/** What the workspace overview sorts by: a metric, or (for money) one currency's figure. */
export const OVERVIEW_SORTS = [
  "rpv",
  "play_rate",
  "conversion_rate",
  "impressions",
  "plays",
  "unmute_rate",
  "unique_viewers",
  "avg_watch_time_s",
  "avg_percent_watched",
  "leads",
  "orders",
  "revenue",
  "aov",
  "epc",
  "roas",
  "rebuffer_ratio",
  "errors",
] as const;
type OverviewSort = (typeof OVERVIEW_SORTS)[number];
const MONEY_SORTS = new Set<OverviewSort>(["rpv", "revenue", "aov", "epc", "roas"]);
export const OVERVIEW_MAX_PER_PAGE = 200;

export interface WorkspaceOverviewQuery extends WindowQuery {
  sort?: string;
  order?: string;
  currency?: string;
  page?: string;
  per_page?: string;
}

/** The currency with the most orders in these metrics (ties: alphabetical), or null without sales. */
function busiestCurrency(all: GroupMetrics[]): string | null {
  const orders = new Map<string, number>();
  for (const m of all) for (const r of m.revenue) if (r.currency) orders.set(r.currency, (orders.get(r.currency) ?? 0) + r.orders);
  return [...orders.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? null;
}

/** Every video of the workspace with its metrics, sorted (nulls last; ties: impressions, then id) and paged. */
export async function workspaceOverview(deps: Deps, workspaceId: number, input: WorkspaceOverviewQuery) {
  const w = resolveWindow(deps.clock.now(), input, DEFAULT_WINDOW_DAYS);
  const sort = oneOfParam(input.sort, "sort", OVERVIEW_SORTS, "rpv");
  const order = oneOfParam(input.order, "order", ["asc", "desc"] as const, "desc");
  const page = intParam(input.page, "page", 1, Number.MAX_SAFE_INTEGER, 1);
  const perPage = intParam(input.per_page, "per_page", 1, OVERVIEW_MAX_PER_PAGE, 50);
  if (input.currency !== undefined && input.currency !== "" && !/^[A-Za-z]{3}$/.test(input.currency))
    throw validation({ currency: ["The currency must be a 3-letter code."] });

  const videos = await deps.sql<{ id: number; code: string; title: string }[]>`
    SELECT id, code::text AS code, title FROM videos WHERE workspace_id = ${workspaceId} ORDER BY id`;
  const ids = videos.map((v) => Number(v.id));
  const metrics = ids.length
    ? await computeVideoMetrics(deps, { workspaceId, videoIds: ids, start: w.start, end: w.end, tz: w.tz }, await spendOf(deps, workspaceId, ids, w.from, w.to))
    : new Map<number, GroupMetrics>();
  const currency = input.currency ? input.currency.toUpperCase() : busiestCurrency([...metrics.values()]);
  const keyOf = (m: GroupMetrics): number | null => {
    if (!MONEY_SORTS.has(sort)) return m[sort as Exclude<OverviewSort, "rpv" | "revenue" | "aov" | "epc" | "roas">];
    const row = m.revenue.find((r) => r.currency === currency);
    return row ? row[sort as "rpv" | "revenue" | "aov" | "epc" | "roas"] : null;
  };
  const list = videos.map((v) => ({ video_id: Number(v.id), video_code: v.code, title: v.title, ...metrics.get(Number(v.id))! }));
  const sign = order === "asc" ? 1 : -1;
  list.sort((a, b) => {
    const x = keyOf(a);
    const y = keyOf(b);
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return sign * (x - y);
    }
    return b.impressions - a.impressions || a.video_id - b.video_id;
  });
  return {
    from: w.from,
    to: w.to,
    tz: w.tz,
    sort,
    order,
    currency,
    page,
    per_page: perPage,
    total: list.length,
    videos: list.slice((page - 1) * perPage, page * perPage),
  };
}
