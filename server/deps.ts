/**
 * Everything a request or job may use from the outside world: the engines and
 * the per-process state (batchers, caches, wake-ups). Built once per process by
 * `createDeps` (runtime.ts) from a `Config` and passed down; a module takes the
 * slice it uses (`Pick<Deps, "sql" | "clock">`). This file holds the interface
 * only, so that nothing it names has to import it back.
 */
import type { Config } from "./config.ts";
import type { Log } from "./log.ts";
import type { Clock } from "./lib/clock.ts";
import type { Signal } from "./lib/signal.ts";
import type { TtlCache } from "./lib/ttl-cache.ts";
import type { Sql } from "./storage/postgres.ts";
import type { Ch } from "./storage/clickhouse.ts";
import type { BlobStore } from "./storage/blob/index.ts";
import type { RowCache } from "./storage/row-cache.ts";
import type { EntryCache } from "./storage/entry-cache.ts";
import type { TokenVerifier } from "./http/token-verifier.ts";
import type { RateLimitStore } from "./http/rate-limit.ts";
import type { Metrics } from "./http/metrics.ts";
import type { Ingest } from "./ingest/index.ts";
import type { ViewerCaches } from "./domains/viewers/caches.ts";
import type { CustomEventState } from "./hosts/events/state.ts";
import type { SummaryCache } from "./api/analytics/summary-cache.ts";
import type { SplitTestWithVariations } from "./api/split-tests/repo.ts";
import type { PlaybackState } from "./domains/playback/state.ts";

export interface Blobs {
  /** HLS renditions and thumbnails: what players read. */
  media: BlobStore;
  /** Upload chunks, sources, export files: never served by a public URL (storage/media-keys.ts). */
  private: BlobStore;
  /** The two player CDN targets a deploy pushes to. */
  cdnA: BlobStore;
  cdnB: BlobStore;
}

export interface Deps {
  config: Config;
  sql: Sql;
  ch: Ch;
  blobs: Blobs;
  clock: Clock;
  log: Log;
  tokens: TokenVerifier;
  rateLimits: RateLimitStore;
  /**
   * Video rows by id for the hot read path. Writers call `videoCache.evict(id)`
   * after their commit; other processes hear the videos trigger's NOTIFY.
   */
  videoCache: RowCache<unknown>;
  /** Validators of the player entries this process serves; a deploy evicts them (domains/publish). */
  entries: EntryCache;
  /** Group commit of event rows into ClickHouse; drained by `close()` before the engines go. */
  ingest: Ingest;
  /** This process's Prometheus registry and its series (`/metrics`, README "Probes and metrics"). */
  metrics: Metrics;
  /** Known workspaces, videos, sessions and viewer keys (only caches: Postgres is the truth). */
  viewers: ViewerCaches;
  /** Registered event names, event_id claims and writes in flight. */
  customEvents: CustomEventState;
  /** Analytics summaries, each computed at most once a minute. */
  summaries: SummaryCache;
  /** Split tests by public code, for the events host's assignments (a few seconds; changes here evict at once). */
  splitTests: TtlCache<SplitTestWithVariations | null>;
  /** Videos' playback protection by code and the live signing keys, for the media host (domains/playback). */
  playback: PlaybackState;
  /** In-process wake-ups of the job runners: work queued here starts at once; other processes poll. */
  wake: { encoder: Signal; exports: Signal };
  /** True when this process owns the only copy of its state (PGlite, chDB). */
  embedded: boolean;
  /**
   * Stops everything, in this order: the ingest batchers drain (every acknowledged row
   * is written), listeners and the rate-limit store close, then the engines this call
   * started (Postgres pool, embedded PGlite, ClickHouse). Engines passed in are left open.
   */
  close(): Promise<void>;
}
