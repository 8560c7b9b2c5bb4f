/**
 * The reads the analytics growth mode times (bench/analytics.bench.ts), of video 1 of
 * workspace 1 over a 30-day window, each in a process of its own (read-process.ts).
 */
import { computeBreakdown, computeVideoMetrics, splitTestRows } from "../../server/api/analytics/overview.ts";
import type { Scope } from "../../server/api/analytics/queries.ts";
import { computeRetention, computeSummary } from "../../server/api/analytics/service.ts";
import type { Deps } from "../../server/deps.ts";
import { resolveWindow } from "../../server/http/window.ts";
import type { Ch } from "../../server/storage/clickhouse.ts";

export const GROWTH_WORKSPACE = 1;

export function growthReads(ch: Ch, nowMs: number, from: string, to: string): Record<string, () => Promise<unknown>> {
  const deps = { ch, clock: { now: () => nowMs } } as unknown as Deps; // the compute functions touch only ClickHouse
  const window = resolveWindow(nowMs, { from, to }, 30);
  const scope: Scope = { workspaceId: GROWTH_WORKSPACE, videoIds: [1], start: window.start, end: window.end, tz: window.tz };
  return {
    summary: () => computeSummary(deps, GROWTH_WORKSPACE, 1, "video-1", window),
    "retention (100 buckets)": () => computeRetention(deps, scope, 100),
    "retention of buyers (100 buckets)": () => computeRetention(deps, scope, 100, "buyers"),
    // Counted from the stored 100 buckets too (queries.ts storedBucketsFor).
    "retention (20 buckets)": () => computeRetention(deps, scope, 20),
    "seller overview": () => computeVideoMetrics(deps, scope, []),
    "breakdown by source": () => computeBreakdown(deps, scope, "source", []),
    // The report's read (split-tests/report.ts): per variation, and per variation and day.
    "split-test report (2 variations)": () => splitTestRows(deps, scope, true),
  };
}
