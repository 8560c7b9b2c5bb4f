/**
 * Per-minute ingest counters (accepted, deduplicated, rejected by reason),
 * summed in memory and written to ClickHouse `ingest_counters` (a
 * SummingMergeTree, so several processes and several flushes per minute add up).
 */
import type { Batcher } from "./batcher.ts";

export const Outcomes = { accepted: "accepted", deduplicated: "deduplicated", rejected: "rejected" } as const;
export type Outcome = (typeof Outcomes)[keyof typeof Outcomes];

export interface CounterRow extends Record<string, unknown> {
  minute: string;
  path: string;
  outcome: string;
  reason: string;
  count: number;
}

export class IngestCounters {
  private counts = new Map<string, CounterRow>();

  constructor(
    private readonly batcher: Batcher<CounterRow>,
    private readonly now: () => number,
  ) {}

  count(path: string, outcome: Outcome, reason = "", n = 1): void {
    const minute = Math.floor(this.now() / 60_000) * 60_000;
    const key = `${minute}|${path}|${outcome}|${reason}`;
    const row = this.counts.get(key);
    if (row) row.count += n;
    else this.counts.set(key, { minute: new Date(minute).toISOString().slice(0, 19).replace("T", " "), path, outcome, reason, count: n });
  }

  /** Writes what was counted so far; on failure the counts are kept for the next try. */
  async flush(): Promise<void> {
    if (this.counts.size === 0) return;
    const rows = [...this.counts.values()];
    this.counts = new Map();
    try {
      await this.batcher.add(rows);
    } catch (error) {
      for (const row of rows) this.count(row.path, row.outcome as Outcome, row.reason, row.count);
      throw error;
    }
  }
}
