/**
 * Home's answer to "how is my business" (README "The dashboard"): the window a
 * preset names, the window before it, and the workspace's totals summed from the
 * per-video rows of GET /analytics/overview.
 */
import type { GroupMetrics } from "../contract/analytics.ts";

export const PRESETS = [
  { v: "today", l: "Today", days: 1 },
  { v: "7d", l: "7 days", days: 7 },
  { v: "30d", l: "30 days", days: 30 },
  { v: "90d", l: "90 days", days: 90 },
] as const;
export type Preset = (typeof PRESETS)[number]["v"];

export interface Window {
  from: string;
  to: string;
}

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const ms = (date: string) => Date.parse(`${date}T00:00:00Z`);

/** The days a preset covers, ending `today` (YYYY-MM-DD, UTC). */
export function presetWindow(preset: Preset, today: string): Window {
  const days = PRESETS.find((p) => p.v === preset)!.days;
  return { from: day(ms(today) - (days - 1) * DAY_MS), to: today };
}

/** The window of the same length just before `w`. */
export function previousWindow(w: Window): Window {
  const length = daysIn(w);
  return { from: day(ms(w.from) - length * DAY_MS), to: day(ms(w.from) - DAY_MS) };
}

export const daysIn = (w: Window) => Math.round((ms(w.to) - ms(w.from)) / DAY_MS) + 1;

/** Every day of `w`, in order. */
export const daysOf = (w: Window) => Array.from({ length: daysIn(w) }, (_, i) => day(ms(w.from) + i * DAY_MS));

export interface CurrencyTotals {
  currency: string | null;
  revenue: number;
  orders: number;
  /** Revenue over the unique viewers summed across videos (a viewer of two videos counts twice). */
  rpv: number | null;
  ad_spend: number;
  roas: number | null;
}

export interface Totals {
  impressions: number;
  plays: number;
  play_rate: number | null;
  unique_viewers: number;
  leads: number;
  orders: number;
  revenue: CurrencyTotals[];
}

/** The workspace's totals: counts added up, rates taken over the sums (never averaged). */
export function totalsOf(rows: readonly GroupMetrics[]): Totals {
  const sum = (pick: (r: GroupMetrics) => number) => rows.reduce((n, r) => n + pick(r), 0);
  const impressions = sum((r) => r.impressions);
  const plays = sum((r) => r.plays);
  const uniqueViewers = sum((r) => r.unique_viewers);
  const byCurrency = new Map<string | null, { revenue: number; orders: number; ad_spend: number }>();
  for (const row of rows) {
    for (const c of row.revenue) {
      const into = byCurrency.get(c.currency) ?? { revenue: 0, orders: 0, ad_spend: 0 };
      into.revenue += c.revenue;
      into.orders += c.orders;
      into.ad_spend += c.ad_spend ?? 0;
      byCurrency.set(c.currency, into);
    }
  }
  return {
    impressions,
    plays,
    play_rate: impressions ? plays / impressions : null,
    unique_viewers: uniqueViewers,
    leads: sum((r) => r.leads),
    orders: sum((r) => r.orders),
    revenue: [...byCurrency].map(([currency, c]) => ({
      currency,
      revenue: c.revenue,
      orders: c.orders,
      rpv: uniqueViewers ? c.revenue / uniqueViewers : null,
      ad_spend: c.ad_spend,
      roas: c.ad_spend ? c.revenue / c.ad_spend : null,
    })),
  };
}

/** The change from `before` to `now` as a fraction (0.25: up a quarter); null when there is nothing to compare with. */
export function change(now: number | null, before: number | null): number | null {
  if (now === null || before === null || before === 0) return null;
  return (now - before) / before;
}
