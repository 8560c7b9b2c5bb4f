import { expect, test } from "bun:test";
import { funnelSteps } from "./funnel.ts";
import type { GroupMetrics } from "../contract/analytics.ts";

const overview = {
  impressions: 200,
  plays: 100,
  cta_clicks: [
    { card_index: 0, sessions: 12 },
    { card_index: 1, sessions: 3 },
  ],
  leads: 5,
  orders: 2,
} as GroupMetrics;
const curve = Array.from({ length: 100 }, (_, i) => ({ bucket_pct: i, watch_pct: 1 - i / 100 }));

test("each step counts its sessions and the drop from the step before", () => {
  const steps = funnelSteps(overview, curve);
  expect(steps.map((s) => [s.label, s.count])).toEqual([
    ["Impressions", 200],
    ["Plays", 100],
    ["Watched 25 %", 75],
    ["Watched 50 %", 50],
    ["Watched 75 %", 25],
    ["Watched 100 %", 1],
    ["CTA clicks", 15],
    ["Leads", 5],
    ["Orders", 2],
  ]);
  expect(steps[0]!.drop).toBeNull();
  expect(steps[1]!.drop).toBe(0.5);
  expect(steps[2]!.drop).toBe(0.25);
  expect(steps[8]!.drop).toBeCloseTo(0.6);
});

test("without plays or a curve the marks are none and no drop is made up", () => {
  const steps = funnelSteps({ ...overview, plays: 0 }, []);
  expect(steps.slice(2, 6).map((s) => s.count)).toEqual([0, 0, 0, 0]);
  expect(steps[3]!.drop).toBeNull();
  // More clicks than the step before had sessions is no negative drop.
  expect(steps[6]!.drop).toBeNull();
});
