/**
 * The only module that reads the environment. Everything else receives a
 * `Config` value, so a test can build the whole app from a literal object.
 */
import { createRequire } from "node:module";
import { resolve } from "node:path";

export interface S3Config {
  bucket: string;
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
  /** Public (CDN) origin for media objects; unset means the process serves them. */
  publicBaseUrl?: string;
  /** Buckets for the two player CDN targets; default: the media bucket under cdn-a/ and cdn-b/. */
  cdnBucketA?: string;
  cdnBucketB?: string;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  publicUrl: string;
  /** PUBLIC_URL was set (not made up from HOST and PORT): processes behind a load balancer need it. */
  publicUrlSet: boolean;
  /** Where a CDN serves the player bundles (CDN target A's files at `<cdnUrl>/<key>`); unset: this process's `/cdn`. */
  cdnUrl?: string;
  databaseUrl?: string;
  clickhouseUrl?: string;
  /** A ClickHouse cluster the schema is made on (README "Production"): replicated shards behind Distributed tables of the same names. */
  clickhouseCluster?: string;
  redisUrl?: string;
  s3?: S3Config;
  /** Operator key from the environment; unset means DATA_DIR/admin.key (generated on first start). */
  adminKey?: string;
  /** Where invites are mailed from (README "The dashboard"); unset: the link is only shown to copy. */
  smtpUrl?: string;
  /** The sender of those mails. */
  smtpFrom: string;
  /** The email of the first owner, created on first start when there is no account (README "The dashboard"). */
  ownerEmail: string;
  /** `Authorization: Bearer <token>` that `/metrics` asks for; unset leaves it open (README "Probes and metrics"). */
  metricsToken?: string;
  webhookAllowPrivate: boolean;
  /** Run job workers (encoder, deliverer, sweeper) inside the server process. */
  inProcessWorkers: boolean;
  limits: { readsPerMinute: number; writesPerMinute: number };
  /** Events host limits (docs/api.md "Limits"). */
  eventLimits: { perWorkspacePerMinute: number; perIpPerMinute: number; browserConversionPerIpPerMinute: number };
  /** Group commit of the ingest batchers (docs/architecture.md "Ingest"), the spool and how INSERTs are sent. */
  ingest: {
    maxRows: number;
    maxWaitMs: number;
    concurrency: number;
    gatherMs: number;
    /** Rows the spool may hold while ClickHouse is away; past it events are refused with 503. */
    spoolMaxRows: number;
    /** An INSERT unanswered this long is spooled. */
    insertTimeoutMs: number;
    /** ClickHouse's own insert buffer (`async_insert`, waiting for its flush): on with a ClickHouse server. */
    asyncInsert: boolean;
  };
  /** Take the client IP from the first X-Forwarded-For hop (behind a trusted proxy only). */
  trustProxy: boolean;
  /** A JSON body that has not fully arrived this long after the request is refused with 400 (http/json-body.ts). */
  bodyTimeoutMs: number;
  /** Uploads and encoding (docs/api.md "Uploads", "Limits"). */
  media: {
    ffmpegPath: string;
    ffprobePath: string;
    /**
     * The ffmpeg in use is the registry's static build (2018): it has no
     * `name:` in `-var_stream_map` and crashes writing a master playlist, so
     * the encoder names the rendition folders and writes the master itself.
     */
    legacyHls: boolean;
    encoderConcurrency: number;
    singleUploadMaxBytes: number;
  };
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** The player sources deploys compile (absolute paths); unset means player/entry.ts and player/core.ts. Tests set a fixture player. */
  playerSources?: { entry: string; core: string };
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  return raw === "1" || raw.toLowerCase() === "true" || raw.toLowerCase() === "yes";
}

function s3FromEnv(env: Env): S3Config | undefined {
  if (!env.S3_BUCKET) return undefined;
  return {
    bucket: env.S3_BUCKET,
    endpoint: env.S3_ENDPOINT || undefined,
    region: env.S3_REGION || "us-east-1",
    accessKeyId: env.S3_ACCESS_KEY_ID || undefined,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
    forcePathStyle: flag(env, "S3_FORCE_PATH_STYLE", Boolean(env.S3_ENDPOINT)),
    publicBaseUrl: env.S3_PUBLIC_URL || undefined,
    cdnBucketA: env.S3_CDN_BUCKET_A || undefined,
    cdnBucketB: env.S3_CDN_BUCKET_B || undefined,
  };
}

/**
 * A media tool: `FFMPEG_PATH`-style setting, else the one on PATH, else the
 * static binary an npm package ships (optional dependencies), else the bare
 * name (the encoder then fails each job with a sentence saying so).
 */
function mediaTool(env: Env, setting: string, name: string, npmPackage: string): { path: string; bundled: boolean } {
  if (env[setting]) return { path: env[setting]!, bundled: false };
  const onPath = Bun.which(name, { PATH: env.PATH ?? "" });
  if (onPath) return { path: onPath, bundled: false };
  try {
    const shipped = createRequire(import.meta.url)(npmPackage) as { path: string };
    return { path: shipped.path, bundled: true };
  } catch {
    return { path: name, bundled: false };
  }
}

/** CLICKHOUSE_CLUSTER goes into the DDL as a string literal: a name from the server's remote_servers, or a macro such as `{cluster}`. */
function clickhouseCluster(env: Env): string | undefined {
  const name = env.CLICKHOUSE_CLUSTER;
  if (!name) return undefined;
  if (!/^[A-Za-z0-9_.{}-]+$/.test(name)) throw new Error(`CLICKHOUSE_CLUSTER must be a cluster name (letters, digits, _ . - or a {macro}), got "${name}"`);
  // Embedded chDB is one node with no Keeper: a cluster is only ever a server's.
  if (!env.CLICKHOUSE_URL) throw new Error("CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL (a node of that cluster)");
  return name;
}

export function loadConfig(env: Env): Config {
  const port = integer(env, "PORT", 8080);
  const host = env.HOST || "127.0.0.1";
  const ffmpeg = mediaTool(env, "FFMPEG_PATH", "ffmpeg", "@ffmpeg-installer/ffmpeg");
  const level = (env.LOG_LEVEL || "info") as Config["logLevel"];
  if (!["debug", "info", "warn", "error", "silent"].includes(level)) throw new Error(`LOG_LEVEL must be debug, info, warn, error or silent`);
  return {
    port,
    host,
    dataDir: resolve(env.DATA_DIR || "./data"),
    publicUrl: (env.PUBLIC_URL || `http://${host.includes(":") ? `[${host}]` : host}:${port}`).replace(/\/+$/, ""),
    publicUrlSet: Boolean(env.PUBLIC_URL),
    cdnUrl: env.CDN_URL ? env.CDN_URL.replace(/\/+$/, "") : undefined,
    databaseUrl: env.DATABASE_URL || undefined,
    clickhouseUrl: env.CLICKHOUSE_URL || undefined,
    clickhouseCluster: clickhouseCluster(env),
    redisUrl: env.REDIS_URL || undefined,
    s3: s3FromEnv(env),
    adminKey: env.ADMIN_KEY || undefined,
    ownerEmail: env.OWNER_EMAIL?.trim() || "owner@localhost",
    smtpUrl: env.SMTP_URL || undefined,
    smtpFrom: env.SMTP_FROM?.trim() || "Frameline <frameline@localhost>",
    metricsToken: env.METRICS_TOKEN || undefined,
    webhookAllowPrivate: flag(env, "WEBHOOK_ALLOW_PRIVATE", false),
    inProcessWorkers: flag(env, "IN_PROCESS_WORKERS", true),
    limits: {
      readsPerMinute: integer(env, "RATE_LIMIT_READS_PER_MINUTE", 600),
      writesPerMinute: integer(env, "RATE_LIMIT_WRITES_PER_MINUTE", 60),
    },
    eventLimits: {
      perWorkspacePerMinute: integer(env, "EVENTS_RATE_LIMIT_PER_MINUTE", 600),
      perIpPerMinute: integer(env, "EVENTS_RATE_LIMIT_PER_IP_PER_MINUTE", 120),
      browserConversionPerIpPerMinute: integer(env, "BROWSER_CONVERSION_RATE_LIMIT_PER_MINUTE", 60),
    },
    ingest: {
      maxRows: integer(env, "INGEST_MAX_ROWS", 5000),
      maxWaitMs: integer(env, "INGEST_MAX_WAIT_MS", 50),
      // One INSERT in flight per table: the rows that arrive meanwhile make the next one larger, and
      // on a busy machine fewer, larger INSERTs cost ClickHouse less CPU than overlapping ones.
      concurrency: Math.max(1, integer(env, "INGEST_CONCURRENCY", 1)),
      gatherMs: integer(env, "INGEST_GATHER_MS", 8),
      spoolMaxRows: integer(env, "INGEST_SPOOL_MAX_ROWS", 2_000_000),
      insertTimeoutMs: Math.max(1, integer(env, "INGEST_INSERT_TIMEOUT_MS", 10_000)),
      asyncInsert: flag(env, "CLICKHOUSE_ASYNC_INSERT", Boolean(env.CLICKHOUSE_URL)),
    },
    trustProxy: flag(env, "TRUST_PROXY", false),
    bodyTimeoutMs: Math.max(1, integer(env, "BODY_TIMEOUT_MS", 10_000)),
    media: {
      ffmpegPath: ffmpeg.path,
      ffprobePath: mediaTool(env, "FFPROBE_PATH", "ffprobe", "@ffprobe-installer/ffprobe").path,
      legacyHls: ffmpeg.bundled,
      encoderConcurrency: Math.max(1, integer(env, "ENCODER_CONCURRENCY", 1)),
      // docs/api.md "Limits": 3000 MB per single-shot request.
      singleUploadMaxBytes: integer(env, "SINGLE_UPLOAD_MAX_BYTES", 3000 * 1024 * 1024),
    },
    logLevel: level,
  };
}
