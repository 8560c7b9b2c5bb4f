/**
 * Group commit into one ClickHouse table (docs/architecture.md "Ingest"): rows collect
 * until a few thousand are waiting or a few tens of milliseconds have passed,
 * then go in one INSERT. An idle batcher sends at once (after the current tick,
 * so a burst shares one INSERT); when a busy one's INSERT returns, the rows that
 * waited for it go after a short gathering pause, so under load INSERTs are
 * fewer and larger (each costs ClickHouse a part to write and later merge)
 * while a quiet request never pays the full wait. `add` resolves only after the
 * INSERT that carried its rows succeeded, or once the batch is in the spool when
 * ClickHouse could not take it (spool.ts), so an acknowledged row is stored; a
 * batch that could be neither rejects every waiter (the caller answers 500
 * WRITE_FAILED or 503 and the client retries), nothing is dropped silently.
 * Each batch carries a token ClickHouse deduplicates by, so a batch sent again
 * (from the spool, or after a timeout that had in fact landed) counts once.
 */
import type { ClickHouseSettings } from "@clickhouse/client";
import type { Ch } from "../storage/clickhouse.ts";
import { isOutage, type Spool } from "./spool.ts";

export interface BatcherOptions {
  /** Flush when this many rows are waiting. */
  maxRows: number;
  /** Flush at the latest this long after the first waiting row arrived. */
  maxWaitMs: number;
  /** INSERTs allowed in flight at once; more batches wait their turn. */
  concurrency: number;
  /** After an INSERT returns, rows that waited for it wait this much longer for company (0: go at once). */
  gatherMs?: number;
  /** Where a batch goes when ClickHouse cannot take it; without one its waiters are rejected. */
  spool?: Spool;
  /** The INSERT's settings for a batch's token (deduplication; async inserts on a server). */
  settings?: (token: string) => ClickHouseSettings;
  /** An INSERT not answered this long is taken for an outage (its batch is spooled, and a late landing deduplicated). */
  insertTimeoutMs?: number;
  /** Told how each batch's INSERT ended (the metrics of README "Probes and metrics"). */
  observe?: InsertObserver;
}

/** `written`: ClickHouse took it; `spooled`: kept in the spool instead; `failed`: its requests were refused. */
export type InsertOutcome = "written" | "spooled" | "failed";
export interface InsertObserver {
  inserted(table: string, rows: number, seconds: number, outcome: InsertOutcome): void;
}

/** Each INSERT names its batch, so that the same batch sent twice is written once. */
export const dedupSettings = (token: string): ClickHouseSettings => ({ insert_deduplication_token: token });

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
  /** When the timer fires (ms since the epoch). */
  private deadline = Infinity;
  private inFlight = new Set<Promise<void>>();
  private queue: Pending<Row>[] = [];
  private stopped = false;

  constructor(
    private readonly ch: Ch,
    readonly table: string,
    private readonly options: BatcherOptions = { maxRows: 5000, maxWaitMs: 50, concurrency: 1, gatherMs: 0 },
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
      else if (this.inFlight.size < this.options.concurrency && this.queue.length === 0 && !this.timer) this.cutSoon();
      else if (!this.timer) this.cutWithin(this.options.maxWaitMs);
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

  /** Cuts in `ms` at the latest (an earlier deadline stands). */
  private cutWithin(ms: number): void {
    const at = Date.now() + ms;
    if (at >= this.deadline) return;
    if (this.timer) clearTimeout(this.timer);
    this.deadline = at;
    this.timer = setTimeout(() => this.cut(), ms);
  }

  private cut(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.deadline = Infinity;
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
        // A slot is free: whatever waited for it goes after the gathering pause (or its own deadline, if sooner).
        if (this.queue.length === 0 && this.pending.rows.length > 0) {
          const gatherMs = this.options.gatherMs ?? 0;
          if (gatherMs > 0) this.cutWithin(gatherMs);
          else this.cut();
        }
        this.pump();
      });
      this.inFlight.add(write);
    }
  }

  private async write(batch: Pending<Row>): Promise<void> {
    const token = crypto.randomUUID();
    const settings = (this.options.settings ?? dedupSettings)(token);
    const started = performance.now();
    let outcome: InsertOutcome = "written";
    let failure: unknown;
    try {
      const abort_signal = this.options.insertTimeoutMs ? AbortSignal.timeout(this.options.insertTimeoutMs) : undefined;
      await this.ch.insert({ table: this.table, values: batch.rows, format: "JSONEachRow", clickhouse_settings: settings, abort_signal });
    } catch (error) {
      const spool = this.options.spool;
      outcome = "failed";
      failure = error;
      if (spool && isOutage(error)) {
        try {
          await spool.put(this.table, token, batch.rows);
          outcome = "spooled";
        } catch (spoolError) {
          failure = spoolError;
        }
      }
    }
    this.options.observe?.inserted(this.table, batch.rows.length, (performance.now() - started) / 1000, outcome);
    for (const waiter of batch.waiters) {
      if (outcome === "failed") waiter.reject(failure);
      else waiter.resolve();
    }
  }
}
