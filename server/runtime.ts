/**
 * One process of Frameline: the engines and per-process state (`createDeps`)
 * and, when asked, the background workers. `close()` stops all of it in one
 * written order, so neither `main.ts` nor `worker.ts` can forget a step:
 * the workers first (each lets its running jobs finish or hands them back),
 * then `deps.close()` (ingest drained, listeners and engines closed).
 */
import { join } from "node:path";
import { mkdir } from "node:fs/promises";
import type { Config } from "./config.ts";
import type { Blobs, Deps } from "./deps.ts";
import { createLog, type Log } from "./log.ts";
import { systemClock, type Clock } from "./lib/clock.ts";
import { Signal } from "./lib/signal.ts";
import { TtlCache } from "./lib/ttl-cache.ts";
import { connectPostgres, migrate, type Sql } from "./storage/postgres.ts";
import { startEmbeddedPostgres } from "./storage/pglite.ts";
import { connectClickHouse, migrateClickHouse, type Ch } from "./storage/clickhouse.ts";
import { createFsBlobStore, createS3BlobStore } from "./storage/blob/index.ts";
import { PRIVATE_PREFIX } from "./storage/media-keys.ts";
import { RowCache } from "./storage/row-cache.ts";
import { EntryCache, listenForEntryChanges } from "./storage/entry-cache.ts";
import { PlaybackState } from "./domains/playback/state.ts";
import { TokenVerifier, listenForRevocations } from "./http/token-verifier.ts";
import { memoryRateLimitStore, postgresCounter, redisCounter, reservingRateLimitStore, type RateLimitStore } from "./http/rate-limit.ts";
import { createIngest } from "./ingest/index.ts";
import { Metrics } from "./http/metrics.ts";
import { ViewerCaches } from "./domains/viewers/caches.ts";
import { CustomEventState } from "./hosts/events/state.ts";
import { startWorkers } from "./workers/index.ts";
import { registerProcess, TopologyError, type Registration } from "./domains/processes/service.ts";
import type { Role } from "./domains/processes/topology.ts";

/** A backstop only: every write evicts at once. */
const VIDEO_CACHE_TTL_MS = 5_000;
const VIDEO_CHANGED_CHANNEL = "frameline_video_changed";

export interface DepsOverrides {
  clock?: Clock;
  log?: Log;
  /** Reuse engines built elsewhere (tests share one chDB per process). */
  sql?: Sql;
  ch?: Ch;
  blobs?: Blobs;
}

function createBlobs(config: Config): Blobs {
  const s3 = config.s3;
  if (!s3) {
    return {
      media: createFsBlobStore(join(config.dataDir, "media"), { publicBaseUrl: `${config.publicUrl}/media` }),
      private: createFsBlobStore(join(config.dataDir, "private")),
      cdnA: createFsBlobStore(join(config.dataDir, "cdn-a"), { publicBaseUrl: `${config.publicUrl}/cdn` }),
      cdnB: createFsBlobStore(join(config.dataDir, "cdn-b"), { publicBaseUrl: `${config.publicUrl}/cdn` }),
    };
  }
  const common = {
    endpoint: s3.endpoint,
    region: s3.region,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    forcePathStyle: s3.forcePathStyle,
  };
  // A store's public URL serves its root: the bucket with the store's prefix applied.
  const store = (bucket: string | undefined, prefix: string) =>
    createS3BlobStore({
      ...common,
      bucket: bucket ?? s3.bucket,
      prefix: bucket ? "" : prefix,
      publicBaseUrl: s3.publicBaseUrl && !bucket ? `${s3.publicBaseUrl.replace(/\/+$/, "")}/${prefix}` : s3.publicBaseUrl,
    });
  // The private store has no public URL, whatever S3_PUBLIC_URL says.
  const privateStore = createS3BlobStore({ ...common, bucket: s3.bucket, prefix: PRIVATE_PREFIX });
  return { media: store(undefined, "media/"), private: privateStore, cdnA: store(s3.cdnBucketA, "cdn-a/"), cdnB: store(s3.cdnBucketB, "cdn-b/") };
}

export async function createDeps(config: Config, overrides: DepsOverrides = {}): Promise<Deps> {
  const log = overrides.log ?? createLog(config.logLevel);
  const clock = overrides.clock ?? systemClock;
  const engines: (() => Promise<void>)[] = [];
  const listeners: (() => Promise<void>)[] = [];
  await mkdir(config.dataDir, { recursive: true });

  let sql = overrides.sql;
  if (!sql) {
    let url = config.databaseUrl;
    let embedded: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
    if (!url) {
      embedded = await startEmbeddedPostgres(join(config.dataDir, "postgres"), (message) => log.error("embedded Postgres restarted", { error: message }));
      url = embedded.url;
    }
    const own = connectPostgres(url);
    // The pool before the database it talks to.
    engines.push(() => own.end({ timeout: 5 }));
    if (embedded) engines.push(embedded.stop);
    sql = own;
  }

  let ch = overrides.ch;
  const ownsClickHouse = !ch;
  if (!ch) {
    const own = await connectClickHouse({ url: config.clickhouseUrl, embeddedPath: join(config.dataDir, "clickhouse"), cluster: config.clickhouseCluster });
    engines.push(() => own.close());
    ch = own;
  }

  // Both schemas under one lock (PostgreSQL's advisory lock): processes that start together
  // against shared engines apply each migration once, one after another.
  if (!overrides.sql || ownsClickHouse) {
    const events = ch;
    await migrate(sql, ownsClickHouse ? () => migrateClickHouse(events, { cluster: config.clickhouseCluster }).then(() => {}) : undefined);
  }

  const tokens = new TokenVerifier(sql, clock);
  const videoCache = new RowCache<unknown>(VIDEO_CACHE_TTL_MS);
  const entries = new EntryCache(60_000, () => clock.now());
  if (config.databaseUrl) {
    // Embedded mode is one process: its own writers evict, nobody else writes.
    listeners.push(await listenForRevocations(sql, tokens));
    const sub = await sql.listen(
      VIDEO_CHANGED_CHANNEL,
      (id) => videoCache.evict(Number(id)),
      () => videoCache.clear(),
    );
    listeners.push(() => sub.unlisten());
    // A session of its own: a revalidation confirms on it that every deploy elsewhere was heard (storage/entry-cache.ts).
    listeners.push(await listenForEntryChanges(config.databaseUrl, entries));
  }

  let rateLimits: RateLimitStore;
  if (config.redisUrl) rateLimits = reservingRateLimitStore(await redisCounter(config.redisUrl));
  else if (config.databaseUrl) rateLimits = reservingRateLimitStore(postgresCounter(sql));
  else rateLimits = memoryRateLimitStore();
  listeners.push(async () => rateLimits.close?.());

  const metrics = new Metrics();
  const ingest = createIngest({ ch, sql, config, clock, log, observe: metrics });
  const now = () => clock.now();
  let closing: Promise<void> | undefined;
  const step = (close: () => Promise<void>) => close().catch((error) => log.warn("close failed", { error: String(error) }));

  return {
    config,
    sql,
    ch,
    blobs: overrides.blobs ?? createBlobs(config),
    clock,
    log,
    tokens,
    rateLimits,
    videoCache,
    entries,
    ingest,
    metrics,
    viewers: new ViewerCaches(now),
    customEvents: new CustomEventState(sql),
    summaries: new Map(),
    splitTests: new TtlCache(10_000, now),
    playback: new PlaybackState(sql, now),
    wake: { encoder: new Signal(), exports: new Signal() },
    embedded: !config.databaseUrl,
    close() {
      closing ??= (async () => {
        await step(() => ingest.stop());
        for (const close of listeners) await step(close);
        for (const close of engines) await step(close);
      })();
      return closing;
    },
  };
}

export interface Runtime {
  deps: Deps;
  close(): Promise<void>;
}

/**
 * `role` registers the process in the deployment's registry (domains/processes), which
 * refuses a configuration that would split the truth with a TopologyError before any
 * worker or listener starts.
 */
export async function createRuntime(config: Config, options: { role: Role; workers: boolean }, overrides: DepsOverrides = {}): Promise<Runtime> {
  const deps = await createDeps(config, overrides);
  let registration: Registration;
  try {
    registration = await registerProcess(deps, options.role);
  } catch (error) {
    await deps.close();
    throw error;
  }
  const stopWorkers = options.workers ? startWorkers(deps) : undefined;
  let closing: Promise<void> | undefined;
  return {
    deps,
    close() {
      closing ??= (async () => {
        await stopWorkers?.();
        await registration.stop();
        await deps.close();
      })();
      return closing;
    },
  };
}

/** A start refused for its configuration ends the process with that one line; anything else is thrown on. */
export function refuseToStart(error: unknown): never {
  if (!(error instanceof TopologyError)) throw error;
  console.error(`Frameline cannot start: ${error.message}`);
  process.exit(1);
}
