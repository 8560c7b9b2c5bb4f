/**
 * The ingest pipeline of one process: a batcher per ClickHouse table (player
 * events go to `player_events`, which feeds `events` and the analytics view;
 * conversions to `sale_events`, which feeds `events` and `analytics_sales`;
 * custom events go to `events`) and the ingest counters. Built
 * lazily per `Deps` and drained by `stopIngest` before the engines close
 * (server/main.ts), so SIGTERM loses nothing acknowledged.
 */
import type { Deps } from "../deps.ts";
import { Batcher } from "./batcher.ts";
import { IngestCounters, type CounterRow } from "./counters.ts";

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
}

export interface Ingest {
  /** Custom events. */
  events: Batcher<EventRow>;
  /** Conversions (0006_seller_analytics.sql): land in `events` and keep `analytics_sales`. */
  sales: Batcher<EventRow>;
  /** The player's events (0004_player_events.sql): land in `events` and keep the analytics slots. */
  playerEvents: Batcher<EventRow>;
  counters: IngestCounters;
  stop(): Promise<void>;
}

const pipelines = new WeakMap<Deps, Ingest>();
const COUNTER_FLUSH_MS = 10_000;

export function ingestFor(deps: Deps): Ingest {
  let ingest = pipelines.get(deps);
  if (ingest) return ingest;
  const options = deps.config.ingest;
  const events = new Batcher<EventRow>(deps.ch, "events", options);
  const playerEvents = new Batcher<EventRow>(deps.ch, "player_events", options);
  const sales = new Batcher<EventRow>(deps.ch, "sale_events", options);
  const counterRows = new Batcher<CounterRow>(deps.ch, "ingest_counters", { maxRows: 1000, maxWaitMs: 5, concurrency: 1 });
  const counters = new IngestCounters(counterRows, () => deps.clock.now());
  const timer = setInterval(() => counters.flush().catch((error) => deps.log.warn("ingest counters flush failed", { error: String(error) })), COUNTER_FLUSH_MS);
  timer.unref?.();
  let stopping: Promise<void> | undefined;
  ingest = {
    events,
    playerEvents,
    sales,
    counters,
    stop() {
      stopping ??= (async () => {
        clearInterval(timer);
        await Promise.all([events.stop(), playerEvents.stop(), sales.stop()]);
        await counters.flush().catch((error) => deps.log.warn("ingest counters flush failed", { error: String(error) }));
        await counterRows.stop();
      })();
      return stopping;
    },
  };
  pipelines.set(deps, ingest);
  return ingest;
}

/** Drains every batcher of this process; call before `deps.close()`. */
export async function stopIngest(deps: Deps): Promise<void> {
  // The stopped pipeline stays registered: a late request gets a refusal (500 WRITE_FAILED), not a fresh batcher.
  await pipelines.get(deps)?.stop();
}

let lastMs = NaN;
let lastText = "";

/** ClickHouse DateTime64(3) text for a JS time (under load many events share a millisecond: the last text is reused). */
export function chTime(ms: number): string {
  if (ms === lastMs) return lastText;
  lastMs = ms;
  return (lastText = new Date(ms).toISOString().slice(0, 23).replace("T", " "));
}
