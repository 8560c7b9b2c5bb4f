/**
 * The ingest pipeline of one process: a batcher per ClickHouse table (player
 * events go to `player_events`, which feeds `events` and the analytics view;
 * conversions to `sale_events`, which feeds `events` and `analytics_sales`;
 * custom events go to `events`) and the ingest counters. Built once by
 * `createDeps` (`deps.ingest`) and drained by `deps.close()` before the
 * engines close, so SIGTERM loses nothing acknowledged.
 */
import type { Config } from "../config.ts";
import type { Clock } from "../lib/clock.ts";
import type { Log } from "../log.ts";
import type { ClickHouseSettings } from "@clickhouse/client";
import type { Ch } from "../storage/clickhouse.ts";
import type { Sql } from "../storage/postgres.ts";
import { Batcher, dedupSettings, type InsertObserver } from "./batcher.ts";
import { IngestCounters, type CounterRow } from "./counters.ts";
import { Spool, type ReplayObserver } from "./spool.ts";

/** One row of ClickHouse `events` (0001_events.sql + 0002_ingest.sql). */
export interface EventRow extends Record<string, unknown> {
  workspace_id: number;
  video_id: number;
  video_code: string;
  event_type: string;
  event: string;
  event_id: string;
  session_code: string;
  device_id: string;
  watch_seconds: number;
  video_time: number;
  value: number | null;
  properties: Record<string, string>;
  /** `YYYY-MM-DD hh:mm:ss.sss` in UTC. */
  created_at: string;
  viewer_id: number;
  /** Player events: when the events host first saw the session (0011_session_start.sql); `created_at` when absent. */
  session_start?: string;
}

export interface Ingest {
  /** Custom events. */
  events: Batcher<EventRow>;
  /** Conversions (0006_seller_analytics.sql): land in `events` and keep `analytics_sales`. */
  sales: Batcher<EventRow>;
  /** The player's events (0004_player_events.sql): land in `events` and keep the analytics slots. */
  playerEvents: Batcher<EventRow>;
  counters: IngestCounters;
  /** Batches kept while ClickHouse cannot take them, replayed when it can (spool.ts). */
  spool: Spool;
  /** Drains every batcher; a row added afterwards is refused (500 WRITE_FAILED), never dropped. */
  stop(): Promise<void>;
}

const COUNTER_FLUSH_MS = 10_000;

/**
 * A ClickHouse server takes many small INSERTs into its own buffer and writes fewer,
 * larger parts (`async_insert`); waiting for that flush keeps "acknowledged" meaning
 * stored. Embedded chDB keeps this process's group commit instead.
 */
function insertSettings(asyncInsert: boolean): (token: string) => ClickHouseSettings {
  if (!asyncInsert) return dedupSettings;
  return (token) => ({ ...dedupSettings(token), async_insert: 1, wait_for_async_insert: 1, async_insert_deduplicate: 1 });
}

/** Told what the batchers' INSERTs and the spool's replays came to (the metrics of README "Probes and metrics"). */
export type IngestObserver = InsertObserver & ReplayObserver;

export function createIngest(deps: { ch: Ch; sql: Sql; config: Pick<Config, "ingest">; clock: Clock; log: Log; observe?: IngestObserver }): Ingest {
  const options = deps.config.ingest;
  const { observe } = deps;
  const settings = insertSettings(options.asyncInsert);
  const spool = new Spool(deps.sql, deps.ch, deps.log, { maxRows: options.spoolMaxRows, observe }, settings);
  const batching = { ...options, spool, settings, insertTimeoutMs: options.insertTimeoutMs, observe };
  const events = new Batcher<EventRow>(deps.ch, "events", batching);
  const playerEvents = new Batcher<EventRow>(deps.ch, "player_events", batching);
  const sales = new Batcher<EventRow>(deps.ch, "sale_events", batching);
  const counterRows = new Batcher<CounterRow>(deps.ch, "ingest_counters", { maxRows: 1000, maxWaitMs: 5, concurrency: 1, spool, settings, observe });
  const counters = new IngestCounters(counterRows, () => deps.clock.now());
  const timer = setInterval(() => counters.flush().catch((error) => deps.log.warn("ingest counters flush failed", { error: String(error) })), COUNTER_FLUSH_MS);
  timer.unref?.();
  spool.start();
  let stopping: Promise<void> | undefined;
  return {
    events,
    playerEvents,
    sales,
    counters,
    spool,
    stop() {
      stopping ??= (async () => {
        clearInterval(timer);
        await Promise.all([events.stop(), playerEvents.stop(), sales.stop()]);
        await counters.flush().catch((error) => deps.log.warn("ingest counters flush failed", { error: String(error) }));
        await counterRows.stop();
        await spool.stop();
      })();
      return stopping;
    },
  };
}

let lastMs = NaN;
let lastText = "";

/** ClickHouse DateTime64(3) text for a JS time (under load many events share a millisecond: the last text is reused). */
export function chTime(ms: number): string {
  if (ms === lastMs) return lastText;
  lastMs = ms;
  return (lastText = new Date(ms).toISOString().slice(0, 23).replace("T", " "));
}
