/** The per-process cache of analytics summaries (`deps.summaries`). */
import type { summaryFromRow } from "./queries.ts";

export interface SummaryBody {
  video_id: number;
  video_code: string;
  from: string;
  to: string;
  tz: string;
  summary: ReturnType<typeof summaryFromRow>;
}

export interface CachedSummary {
  expiresAt: number;
  value: Promise<{ body: SummaryBody; etag: string }>;
}

/**
 * Summaries of this process by query (`deps.summaries`, built by createDeps): a cache
 * is only a cache (docs/architecture.md "One process or many"), so other processes may compute their own.
 */
export type SummaryCache = Map<string, CachedSummary>;
