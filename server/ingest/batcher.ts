/**
 * Group commit into one ClickHouse table (DESIGN.md "Ingest"): rows collect
 * until a few thousand are waiting or a few tens of milliseconds have passed,
 * then go in one INSERT. When an INSERT slot is free the waiting rows go at
 * once (after the current tick, so a burst shares one INSERT): batches grow
 * with load instead of every request paying the full wait. `add` resolves only after the INSERT that carried its
 * rows succeeded, so an acknowledged row is on disk; a failed INSERT rejects
 * every waiter of that batch (the caller answers 500 WRITE_FAILED and the client
 * retries), nothing is dropped silently.
 */
import type { Ch } from "../storage/clickhouse.ts";

export interface BatcherOptions {
  /** Flush when this many rows are waiting. */
  maxRows: number;
  /** Flush at the latest this long after the first waiting row arrived. */
  maxWaitMs: number;
  /** INSERTs allowed in flight at once; more batches wait their turn. */
  concurrency: number;
}

interface Pending<Row> {
  rows: Row[];
  waiters: { resolve(): void; reject(error: unknown): void }[];
}

export class BatcherStoppedError extends Error {
  constructor(table: string) {
    super(`the ${table} batcher is stopped`);
  }
}

export class Batcher<Row extends Record<string, unknown>> {
  private pending: Pending<Row> = { rows: [], waiters: [] };
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight = new Set<Promise<void>>();
  private queue: Pending<Row>[] = [];
  private stopped = false;

  constructor(
    private readonly ch: Ch,
    readonly table: string,
    private readonly options: BatcherOptions = { maxRows: 5000, maxWaitMs: 50, concurrency: 1 },
  ) {}

  /** Resolves once `rows` are inserted; rejects when their INSERT failed. */
  add(rows: Row[]): Promise<void> {
    if (this.stopped) return Promise.reject(new BatcherStoppedError(this.table));
    if (rows.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const pending = this.pending;
      for (const row of rows) pending.rows.push(row);
      pending.waiters.push({ resolve, reject });
      if (pending.rows.length >= this.options.maxRows) this.cut();
      else if (this.inFlight.size < this.options.concurrency && this.queue.length === 0) this.cutSoon();
      else this.timer ??= setTimeout(() => this.cut(), this.options.maxWaitMs);
    });
  }

  /** Rows waiting or being written (for tests and the drain). */
  get backlog(): number {
    return this.pending.rows.length + this.queue.reduce((n, p) => n + p.rows.length, 0);
  }

  /** Sends everything waiting now and resolves when every INSERT has settled. */
  async flush(): Promise<void> {
    this.cut();
    while (this.inFlight.size > 0 || this.queue.length > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Drain on shutdown: refuses new rows, writes the waiting ones. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.flush();
  }

  private soon = false;

  /** Cuts after the requests already parsed in this tick have added their rows. */
  private cutSoon(): void {
    if (this.soon) return;
    this.soon = true;
    setImmediate(() => {
      this.soon = false;
      this.cut();
    });
  }

  private cut(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.rows.length === 0) return;
    this.queue.push(this.pending);
    this.pending = { rows: [], waiters: [] };
    this.pump();
  }

  private pump(): void {
    while (this.inFlight.size < this.options.concurrency && this.queue.length > 0) {
      const batch = this.queue.shift()!;
      const write = this.write(batch).finally(() => {
        this.inFlight.delete(write);
        // A slot is free: whatever waited for it goes now rather than at its timer.
        if (this.queue.length === 0 && this.pending.rows.length > 0) this.cut();
        this.pump();
      });
      this.inFlight.add(write);
    }
  }

  private async write(batch: Pending<Row>): Promise<void> {
    try {
      await this.ch.insert({ table: this.table, values: batch.rows, format: "JSONEachRow" });
    } catch (error) {
      for (const waiter of batch.waiters) waiter.reject(error);
      return;
    }
    for (const waiter of batch.waiters) waiter.resolve();
  }
}
