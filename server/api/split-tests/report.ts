/**
 * A split test's figures per variation, on the seller-analytics metrics
 * (analytics/metrics.ts grouped by the variation each session was served), its goal
 * statistics (stats.ts), and the winner rule run over the test's whole life, which
 * declares a winner once (`split_test.winner_declared`). Knows nothing of HTTP.
 */
import type { Deps } from "../../deps.ts";
import { groupMetrics, type MetricsRow } from "../analytics/metrics.ts";
import { splitTestRows } from "../analytics/overview.ts";
import * as q from "../analytics/queries.ts";
import { canonicalTimeZone, resolveWindow, type Window, type WindowQuery } from "../../http/window.ts";
import { enqueueEvent } from "../../storage/outbox.ts";
import type { Goal, Report } from "./model.ts";
import * as repo from "./repo.ts";
import type { SplitTestWithVariations, VariationRow } from "./repo.ts";
import { forgetServing, getSplitTest } from "./service.ts";
import { type Arm, CONFIDENCE, compare, decide, MIN_EXPECTED, MIN_TRIALS, rateOf } from "./stats.ts";

export const METHOD = "two-proportion z-test (pooled; Bonferroni across variations)";

/** The goal as a binomial arm: what a trial is and what a success is (README "Split tests"). */
export function armOf(goal: Goal, row: MetricsRow | undefined): Arm {
  const n = (v: unknown) => Number(v ?? 0);
  switch (goal) {
    case "conversion":
      return { trials: n(row?.plays), successes: n(row?.played_buyers) };
    case "play":
      return { trials: n(row?.impressions), successes: n(row?.plays) };
    case "cta_click":
      return { trials: n(row?.impressions), successes: n(row?.cta_sessions) };
  }
}

const keyOf = (t: SplitTestWithVariations, v: VariationRow) => `${t.id}:${v.id}`;

/** The metrics rows of the test's sessions in the window, by `<test>:<variation>` (and with `daily` also by `<test>:<variation>|<date>`). */
async function measure(deps: Deps, t: SplitTestWithVariations, w: Window, daily: boolean): Promise<Map<string, MetricsRow>> {
  const videoIds = [...new Set(t.variations.flatMap((v) => (v.video_id === null ? [] : [v.video_id])))];
  if (videoIds.length === 0) return new Map();
  const scope: q.Scope = { workspaceId: t.workspace_id, videoIds, start: w.start, end: w.end, tz: w.tz };
  const rows = await splitTestRows(deps, scope, daily);
  return new Map(rows.map((r) => [r.g ?? "", r]));
}

/** YYYY-MM-DD of an instant in a time zone. */
const localDate = (at: Date, tz: string) => new Intl.DateTimeFormat("en-CA", { timeZone: tz, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);

const round = (v: number | null | undefined, places = 4) => (v === null || v === undefined ? null : q.round(v, places));

/** GET /split-tests/{id}/report: per variation, the goal's statistics against the control, and the goal per day. */
export async function splitTestReport(deps: Deps, workspaceId: number, id: number | undefined, query: WindowQuery): Promise<Report> {
  const t = await getSplitTest(deps, workspaceId, id);
  // The day the test was created, in the report's time zone (an unknown zone is resolveWindow's 422).
  const created = localDate(t.created_at, canonicalTimeZone(query.tz || "UTC") ?? "UTC");
  const w = resolveWindow(deps.clock.now(), { ...query, from: query.from ?? (query.to === undefined || query.to >= created ? created : undefined) }, 30);
  const goal = t.goal as Goal;
  // The rows per variation and, for the series, per variation and day: one read.
  const rows = await measure(deps, t, w, true);
  const arms = t.variations.map((v) => armOf(goal, rows.get(keyOf(t, v))));
  const decision = decide(arms);
  const controlArm = arms[0]!;
  const variations = t.variations.map((v, i) => {
    const row = rows.get(keyOf(t, v));
    const m = groupMetrics(row, false);
    const arm = arms[i]!;
    const vs = i === 0 ? undefined : compare(controlArm, arm);
    return {
      variation_id: v.id,
      video_id: v.video_id,
      video_code: v.video_code,
      title: v.title,
      weight: v.weight,
      control: i === 0,
      impressions: m.impressions,
      plays: m.plays,
      play_rate: m.play_rate,
      unique_viewers: m.unique_viewers,
      unique_viewers_exact: m.unique_viewers_exact,
      conversions: Number(row?.played_orders ?? 0),
      conversion_rate: m.conversion_rate,
      cta_click_sessions: Number(row?.cta_sessions ?? 0),
      revenue: m.revenue.map((r) => ({ currency: r.currency, orders: r.orders, revenue: r.revenue, rpv: r.rpv })),
      goal: {
        trials: arm.trials,
        successes: arm.successes,
        rate: round(rateOf(arm)),
        difference: round(vs?.difference),
        ci_low: round(vs?.ci_low),
        ci_high: round(vs?.ci_high),
        p_value: round(vs?.p_value),
        probability_to_beat_control: round(vs?.probability_to_beat),
      },
    };
  });
  return {
    split_test_id: t.id,
    goal,
    from: w.from,
    to: w.to,
    tz: w.tz,
    variations,
    decision: {
      method: METHOD,
      confidence: CONFIDENCE,
      minimum_trials: MIN_TRIALS,
      minimum_expected: MIN_EXPECTED,
      sample_reached: decision.sample_reached,
      leader_variation_id: decision.leader === undefined ? null : t.variations[decision.leader]!.id,
      significant: decision.winner !== undefined,
      declared_variation_id: t.declared_variation_id,
      declared_at: t.declared_at?.toISOString() ?? null,
    },
    series: seriesOf(t, goal, rows),
  };
}

/** The goal per local day and variation, and cumulated up to each day (the chart). */
function seriesOf(t: SplitTestWithVariations, goal: Goal, rows: Map<string, MetricsRow>): Report["series"] {
  const dates = [...new Set([...rows.keys()].map((k) => k.split("|")[1] ?? "").filter((d) => d !== ""))].sort();
  const total = new Map(t.variations.map((v) => [v.id, { trials: 0, successes: 0 }]));
  return dates.map((date) => ({
    date,
    variations: t.variations.map((v) => {
      const arm = armOf(goal, rows.get(`${keyOf(t, v)}|${date}`));
      const sum = total.get(v.id)!;
      sum.trials += arm.trials;
      sum.successes += arm.successes;
      return { variation_id: v.id, trials: arm.trials, successes: arm.successes, rate: round(rateOf(arm)), cumulative_rate: round(rateOf(sum)) };
    }),
  }));
}

/**
 * The winner rule over the test's whole life (from the day it was created to today,
 * UTC). Declares the winner at most once: the row's update and the outbox event commit
 * together. Returns the declared variation's id, if this call declared one.
 */
export async function evaluateSplitTest(deps: Deps, t: SplitTestWithVariations): Promise<number | undefined> {
  if (t.status !== "running" || t.declared_variation_id !== null) return undefined;
  const w = resolveWindow(deps.clock.now(), { from: t.created_at.toISOString().slice(0, 10) }, 0);
  const goal = t.goal as Goal;
  const totals = await measure(deps, t, w, false);
  const arms = t.variations.map((v) => armOf(goal, totals.get(keyOf(t, v))));
  const { winner } = decide(arms);
  if (winner === undefined) return undefined;
  const won = t.variations[winner]!;
  const at = new Date(deps.clock.now());
  const declared = await deps.sql.begin(async (tx) => {
    if (!(await repo.declareWinner(tx, t.id, won.id, at))) return false;
    await enqueueEvent(tx, t.workspace_id, "split_test.winner_declared", {
      split_test_id: t.id,
      name: t.name,
      goal,
      winner_variation_id: won.id,
      video: { id: won.video_id, code: won.video_code },
      control_variation_id: t.variations[0]!.id,
      method: METHOD,
      confidence: CONFIDENCE,
      variations: t.variations.map((v, i) => ({
        variation_id: v.id,
        video_id: v.video_id,
        trials: arms[i]!.trials,
        successes: arms[i]!.successes,
        rate: round(rateOf(arms[i]!)),
      })),
      auto_promoted: t.auto_promote,
      decided_at: at.toISOString(),
    });
    return true;
  });
  if (!declared) return undefined;
  // With auto_promote, the winner is now served to everyone: this process stops serving the split at once.
  forgetServing(deps, t.code);
  return won.id;
}

/** The sweep (server/workers): every running test without a winner, checked; returns how many were declared. */
export async function evaluateSplitTests(deps: Deps): Promise<number> {
  let declared = 0;
  for (const t of await repo.undecidedRunningTests(deps.sql)) {
    try {
      if ((await evaluateSplitTest(deps, t)) !== undefined) declared++;
    } catch (error) {
      deps.log.warn("split test evaluation failed", { split_test_id: t.id, error: String(error) });
    }
  }
  return declared;
}
