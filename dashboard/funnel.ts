/**
 * A video's funnel (README "The dashboard"): impressions → plays → the 25, 50, 75
 * and 100 % marks → CTA clicks → leads → orders, each step with the drop from the
 * one before. The marks are the played sessions that watched them: the plays times
 * the 100-bucket retention curve at 25, 50, 75 % and at its last bucket.
 */
import type { GroupMetrics } from "../contract/analytics.ts";
import type { RetentionBucket } from "../contract/api.ts";

export interface FunnelStep {
  label: string;
  count: number;
  /** The share lost since the step before (0..1); null for the first step or after a step of none. */
  drop: number | null;
}

const MARKS = [25, 50, 75, 100] as const;

/** The share of played sessions that watched `mark` % of the video (100: its last bucket); 0 without a curve. */
function watchedAt(buckets: readonly RetentionBucket[], mark: number): number {
  if (!buckets.length) return 0;
  const at = mark === 100 ? buckets[buckets.length - 1] : buckets.find((b) => b.bucket_pct >= mark);
  return at?.watch_pct ?? 0;
}

export function funnelSteps(overview: GroupMetrics, retention: readonly RetentionBucket[]): FunnelStep[] {
  const counts: [string, number][] = [
    ["Impressions", overview.impressions],
    ["Plays", overview.plays],
    ...MARKS.map((m): [string, number] => [`Watched ${m} %`, Math.round(overview.plays * watchedAt(retention, m))]),
    ["CTA clicks", overview.cta_clicks.reduce((n, c) => n + c.sessions, 0)],
    ["Leads", overview.leads],
    ["Orders", overview.orders],
  ];
  return counts.map(([label, count], i) => {
    const before = i === 0 ? 0 : counts[i - 1]![1];
    return { label, count, drop: before > 0 ? Math.max(0, 1 - count / before) : null };
  });
}
