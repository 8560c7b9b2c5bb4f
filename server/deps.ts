/**
 * Everything a request or job needs from the outside world, built once per
 * process from a `Config` and passed down (DESIGN.md "Config is read once").
 */
import { join } from "node:path";
import { mkdir } from "node:fs/promises";
import type { Config } from "./config.ts";
import { createLog, type Log } from "./log.ts";
import { connectPostgres, migrate, type Sql } from "./storage/postgres.ts";
import { startEmbeddedPostgres } from "./storage/pglite.ts";
import { connectClickHouse, migrateClickHouse, type Ch } from "./storage/clickhouse.ts";
import { createFsBlobStore, createS3BlobStore, type BlobStore } from "./storage/blob/index.ts";
import { TokenVerifier, listenForRevocations } from "./http/token-verifier.ts";
import { memoryRateLimitStore, postgresRateLimitStore, redisRateLimitStore, type RateLimitStore } from "./http/rate-limit.ts";

export interface Clock {
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() };

export interface Blobs {
  /** Upload chunks, sources, HLS renditions, thumbnails, exports. */
  media: BlobStore;
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
  /** True when this process owns the only copy of its state (PGlite, chDB). */
  embedded: boolean;
  close(): Promise<void>;
}

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
  return {
    media: createS3BlobStore({ ...common, bucket: s3.bucket, prefix: "media/", publicBaseUrl: s3.publicBaseUrl }),
    cdnA: createS3BlobStore({ ...common, bucket: s3.cdnBucketA ?? s3.bucket, prefix: s3.cdnBucketA ? "" : "cdn-a/", publicBaseUrl: s3.publicBaseUrl }),
    cdnB: createS3BlobStore({ ...common, bucket: s3.cdnBucketB ?? s3.bucket, prefix: s3.cdnBucketB ? "" : "cdn-b/", publicBaseUrl: s3.publicBaseUrl }),
  };
}

export async function createDeps(config: Config, overrides: DepsOverrides = {}): Promise<Deps> {
  const log = overrides.log ?? createLog(config.logLevel);
  const clock = overrides.clock ?? systemClock;
  const closers: (() => Promise<void>)[] = [];
  await mkdir(config.dataDir, { recursive: true });

  let sql = overrides.sql;
  if (!sql) {
    let url = config.databaseUrl;
    if (!url) {
      const embedded = await startEmbeddedPostgres(join(config.dataDir, "postgres"));
      closers.push(embedded.stop);
      url = embedded.url;
    }
    const own = connectPostgres(url);
    closers.unshift(() => own.end({ timeout: 5 }));
    await migrate(own);
    sql = own;
  }

  let ch = overrides.ch;
  if (!ch) {
    const own = await connectClickHouse({ url: config.clickhouseUrl, embeddedPath: join(config.dataDir, "clickhouse") });
    closers.unshift(() => own.close());
    await migrateClickHouse(own);
    ch = own;
  }

  const tokens = new TokenVerifier(sql, clock);
  if (config.databaseUrl && !overrides.sql) {
    const stop = await listenForRevocations(sql, tokens);
    closers.unshift(stop);
  }

  let rateLimits: RateLimitStore;
  if (config.redisUrl) {
    rateLimits = await redisRateLimitStore(config.redisUrl);
    closers.unshift(async () => rateLimits.close?.());
  } else if (config.databaseUrl) rateLimits = postgresRateLimitStore(sql);
  else rateLimits = memoryRateLimitStore();

  return {
    config,
    sql,
    ch,
    blobs: overrides.blobs ?? createBlobs(config),
    clock,
    log,
    tokens,
    rateLimits,
    embedded: !config.databaseUrl,
    async close() {
      for (const close of closers) await close().catch((error) => log.warn("close failed", { error: String(error) }));
    },
  };
}
