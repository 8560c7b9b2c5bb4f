import { expect, test } from "bun:test";
import { change, daysOf, presetWindow, previousWindow, totalsOf } from "./business.ts";
import type { GroupMetrics } from "../contract/analytics.ts";

test("presets end today and the previous window is as long, just before", () => {
  expect(presetWindow("today", "2026-03-10")).toEqual({ from: "2026-03-10", to: "2026-03-10" });
  expect(presetWindow("7d", "2026-03-10")).toEqual({ from: "2026-03-04", to: "2026-03-10" });
  expect(previousWindow({ from: "2026-03-04", to: "2026-03-10" })).toEqual({ from: "2026-02-25", to: "2026-03-03" });
  expect(previousWindow({ from: "2026-03-10", to: "2026-03-10" })).toEqual({ from: "2026-03-09", to: "2026-03-09" });
  expect(daysOf({ from: "2026-02-27", to: "2026-03-02" })).toEqual(["2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"]);
});

const row = (over: Partial<GroupMetrics>): GroupMetrics => ({
  impressions: 0,
  plays: 0,
  play_rate: null,
  autoplays: 0,
  unmutes: 0,
  unmute_rate: null,
  unique_viewers: 0,
  unique_viewers_exact: true,
  avg_watch_time_s: null,
  avg_percent_watched: null,
  cta_clicks: [],
  leads: 0,
  orders: 0,
  conversion_rate: null,
  revenue: [],
  startup_time_ms: { p50: null, p95: null },
  rebuffer_ratio: null,
  errors: 0,
  ...over,
});
const usd = (revenue: number, orders: number, adSpend: number | null) => ({
  currency: "USD",
  orders,
  revenue,
  aov: null,
  rpv: null,
  epc: null,
  ad_spend: adSpend,
  roas: null,
});

test("totals add counts and take rates over the sums, per currency", () => {
  const totals = totalsOf([
    row({ impressions: 10, plays: 5, unique_viewers: 8, leads: 2, orders: 1, revenue: [usd(100, 1, 50)] }),
    row({ impressions: 30, plays: 5, unique_viewers: 12, orders: 2, revenue: [usd(60, 2, null), { ...usd(40, 1, null), currency: "EUR" }] }),
  ]);
  expect(totals).toMatchObject({ impressions: 40, plays: 10, play_rate: 0.25, leads: 2, orders: 3 });
  expect(totals.revenue).toEqual([
    { currency: "USD", revenue: 160, orders: 3, rpv: 8, ad_spend: 50, roas: 3.2 },
    { currency: "EUR", revenue: 40, orders: 1, rpv: 2, ad_spend: 0, roas: null },
  ]);
  expect(totalsOf([]).play_rate).toBeNull();
});

test("change is relative to the window before, and unknown without one", () => {
  expect(change(15, 10)).toBe(0.5);
  expect(change(5, 10)).toBe(-0.5);
  expect(change(5, 0)).toBeNull();
  expect(change(null, 3)).toBeNull();
});
