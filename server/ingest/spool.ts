/**
 * Acknowledged means stored, even while ClickHouse is down (README "Production").
 * A batch whose INSERT fails for an outage (no connection, a timeout, the server
 * refusing for load) is kept in PostgreSQL's `ingest_spool` and its requests are
 * answered as accepted. PostgreSQL rather than a file: it is already where every
 * acknowledged write of the service lives, it survives the loss of the app's
 * machine or container (a file under DATA_DIR would wait for that disk to come
 * back), and any process can drain what another one spooled.
 *
 * Every process runs a drainer: while the spool holds batches it replays the oldest
 * first, one process at a time (an advisory lock), each with the token its first
 * INSERT carried, so a batch that had in fact landed is skipped by ClickHouse
 * (0012_dedup_window.sql) and nothing is counted twice. The spool is bounded: past
 * `maxRows` waiting rows a new batch is refused (503 with Retry-After).
 */
import type { ClickHouseSettings } from "@clickhouse/client";
import type { Ch } from "../storage/clickhouse.ts";
import type { Log } from "../log.ts";
import { json, type Sql } from "../storage/postgres.ts";
import { errorCode } from "../lib/error-code.ts";
import { fail } from "../errors.ts";

/** ClickHouse exceptions that say "not now" rather than "not these rows". */
const TRANSIENT_CODES = new Set([
  "3", // UNEXPECTED_END_OF_FILE
  "159", // TIMEOUT_EXCEEDED
  "164", // READONLY
  "202", // TOO_MANY_SIMULTANEOUS_QUERIES
  "209", // SOCKET_TIMEOUT
  "210", // NETWORK_ERROR
  "241", // MEMORY_LIMIT_EXCEEDED
  "242", // TABLE_IS_READ_ONLY
  "252", // TOO_MANY_PARTS
  "319", // UNKNOWN_STATUS_OF_INSERT
  "425", // SYSTEM_ERROR
  "999", // KEEPER_EXCEPTION
]);

/**
 * True when an INSERT failed because ClickHouse could not take it now (the batch is
 * worth keeping), false when ClickHouse refused the rows themselves (keeping them
 * would only fail again). A ClickHouse exception carries a numeric code; anything
 * else (refused connection, reset, timeout, a proxy's 5xx) is an outage.
 */
export function isOutage(error: unknown): boolean {
  const code = errorCode(error);
  if (code !== undefined && /^\d+$/.test(code)) return TRANSIENT_CODES.has(code);
  return true;
}

export interface SpoolDepth {
  batches: number;
  rows: number;
  /** Batches ClickHouse refused when replayed (kept for an operator, not replayed again). */
  refused: number;
}

export interface SpoolOptions {
  /** Rows the spool may hold; past it a batch is refused with 503. */
  maxRows: number;
  /** How often a drainer looks while the spool is not empty (and backs off while ClickHouse stays down). */
  drainEveryMs?: number;
  /** Told of each batch replayed, or refused by ClickHouse (the metrics of README "Probes and metrics"). */
  observe?: ReplayObserver;
}

export interface ReplayObserver {
  replayed(table: string, rows: number): void;
  refused(table: string): void;
}

const SPOOL_LOCK = 7_240_318_004;

export class Spool {
  private known: SpoolDepth = { batches: 0, rows: 0, refused: 0 };
  private timer: ReturnType<typeof setTimeout> | undefined;
  private draining: Promise<void> | undefined;
  private stopped = false;
  private backoffMs: number;

  constructor(
    private readonly sql: Sql,
    private readonly ch: Ch,
    private readonly log: Log,
    private readonly options: SpoolOptions,
    private readonly settings: (token: string) => ClickHouseSettings,
  ) {
    this.backoffMs = options.drainEveryMs ?? 1000;
  }

  /** The depth as last read (refreshed by every drain round and put). */
  get depth(): SpoolDepth {
    return this.known;
  }

  /** Reads the depth now. */
  async refresh(): Promise<SpoolDepth> {
    const [row] = await this.sql<{ batches: number; rows: number; refused: number }[]>`
      SELECT count(*) FILTER (WHERE refused IS NULL)::int AS batches,
             coalesce(sum(row_count) FILTER (WHERE refused IS NULL), 0)::int AS rows,
             count(*) FILTER (WHERE refused IS NOT NULL)::int AS refused
      FROM ingest_spool`;
    this.known = row!;
    return this.known;
  }

  /** Keeps a batch ClickHouse could not take; throws 503 past the bound (and whatever PostgreSQL throws). */
  async put(target: string, token: string, rows: Record<string, unknown>[]): Promise<void> {
    const depth = await this.refresh();
    if (depth.rows + rows.length > this.options.maxRows) throw fail("INGEST_BACKLOG_FULL");
    await this.sql`
      INSERT INTO ingest_spool (target, token, row_count, rows)
      VALUES (${target}, ${token}, ${rows.length}, ${json(this.sql, rows)})`;
    this.known = { ...depth, batches: depth.batches + 1, rows: depth.rows + rows.length };
    this.log.warn("ingest: ClickHouse did not take a batch; kept in the spool", { table: target, rows: rows.length, spooled_rows: this.known.rows });
    this.schedule(this.options.drainEveryMs ?? 1000);
  }

  /** True while a custom event with this id waits in the spool (a repeat is then answered as the first). */
  async holdsEvent(workspaceId: number, eventId: string): Promise<boolean> {
    const rows = await this.sql`
      SELECT 1 FROM ingest_spool
      WHERE target = 'events' AND refused IS NULL AND rows @> ${json(this.sql, [{ workspace_id: workspaceId, event_id: eventId }])}
      LIMIT 1`;
    return rows.length > 0;
  }

  /** Starts the drainer: it looks at once (a process may find what another one left), then while batches wait. */
  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.draining;
  }

  /** Replays what waits now (tests and shutdown call it; the timer does otherwise). Resolves when the round ends. */
  drain(): Promise<void> {
    this.draining ??= this.round().finally(() => (this.draining = undefined));
    return this.draining;
  }

  private schedule(ms: number): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.drain().then(() => {
        if (this.known.batches > 0) this.schedule(this.backoffMs);
      });
    }, ms);
    this.timer.unref?.();
  }

  private async round(): Promise<void> {
    try {
      for (;;) {
        const done = await this.replayOldest();
        if (!done) break;
        // Told once its transaction committed, so a rolled-back replay is not counted.
        if (done.refused) this.options.observe?.refused(done.target);
        else this.options.observe?.replayed(done.target, done.rows);
      }
      this.backoffMs = this.options.drainEveryMs ?? 1000;
    } catch (error) {
      // ClickHouse (or PostgreSQL) is still away: look again later, less often.
      this.backoffMs = Math.min(30_000, this.backoffMs * 2);
      this.log.warn("ingest: spool drain waits for ClickHouse", { error: String(error), retry_ms: this.backoffMs });
    }
    await this.refresh().catch(() => {});
  }

  /**
   * Replays the oldest batch in its own transaction and removes it; undefined when there
   * was none (or another process holds the drain). A batch ClickHouse refuses for
   * its rows is marked and kept for an operator; an outage leaves it as it was.
   */
  private async replayOldest(): Promise<{ target: string; rows: number; refused: boolean } | undefined> {
    return this.sql.begin(async (tx) => {
      const [lock] = await tx`SELECT pg_try_advisory_xact_lock(${SPOOL_LOCK}) AS ok`;
      if (!lock!.ok) return undefined;
      const [batch] = await tx<{ id: number; target: string; token: string; rows: Record<string, unknown>[]; row_count: number }[]>`
        SELECT id, target, token, rows, row_count FROM ingest_spool WHERE refused IS NULL ORDER BY id LIMIT 1`;
      if (!batch) return undefined;
      try {
        await this.ch.insert({ table: batch.target, values: batch.rows, format: "JSONEachRow", clickhouse_settings: this.settings(batch.token) });
      } catch (error) {
        if (isOutage(error)) throw error;
        await tx`UPDATE ingest_spool SET refused = ${String(error).slice(0, 1000)}, attempts = attempts + 1 WHERE id = ${batch.id}`;
        this.log.error("ingest: ClickHouse refused a spooled batch; kept, not replayed", { table: batch.target, id: batch.id, error: String(error) });
        return { target: batch.target, rows: batch.row_count, refused: true };
      }
      await tx`DELETE FROM ingest_spool WHERE id = ${batch.id}`;
      return { target: batch.target, rows: batch.row_count, refused: false };
    });
  }
}
