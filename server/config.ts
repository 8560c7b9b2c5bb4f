/**
 * The only module that reads the environment. Everything else receives a
 * `Config` value, so a test can build the whole app from a literal object.
 */
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
  databaseUrl?: string;
  clickhouseUrl?: string;
  redisUrl?: string;
  s3?: S3Config;
  /** Operator key from the environment; unset means DATA_DIR/admin.key (generated on first start). */
  adminKey?: string;
  webhookAllowPrivate: boolean;
  /** Run job workers (encoder, deliverer, sweeper) inside the server process. */
  inProcessWorkers: boolean;
  limits: { readsPerMinute: number; writesPerMinute: number };
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
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

export function loadConfig(env: Env): Config {
  const port = integer(env, "PORT", 8080);
  const host = env.HOST || "127.0.0.1";
  const level = (env.LOG_LEVEL || "info") as Config["logLevel"];
  if (!["debug", "info", "warn", "error", "silent"].includes(level)) throw new Error(`LOG_LEVEL must be debug, info, warn, error or silent`);
  return {
    port,
    host,
    dataDir: resolve(env.DATA_DIR || "./data"),
    publicUrl: (env.PUBLIC_URL || `http://${host.includes(":") ? `[${host}]` : host}:${port}`).replace(/\/+$/, ""),
    databaseUrl: env.DATABASE_URL || undefined,
    clickhouseUrl: env.CLICKHOUSE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    s3: s3FromEnv(env),
    adminKey: env.ADMIN_KEY || undefined,
    webhookAllowPrivate: flag(env, "WEBHOOK_ALLOW_PRIVATE", false),
    inProcessWorkers: flag(env, "IN_PROCESS_WORKERS", true),
    limits: {
      readsPerMinute: integer(env, "RATE_LIMIT_READS_PER_MINUTE", 600),
      writesPerMinute: integer(env, "RATE_LIMIT_WRITES_PER_MINUTE", 60),
    },
    logLevel: level,
  };
}
