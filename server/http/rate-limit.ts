/**
 * Per-token fixed one-minute windows (SPEC.md "Limits"), counted in a store
 * every process shares: Redis when REDIS_URL is set, else Postgres; memory only
 * in embedded mode, which is one process by construction.
 */
import type { Sql } from "../storage/postgres.ts";
import { Errors } from "../errors.ts";

export interface RateLimitStore {
  /** Counts one hit in the window and returns the hits so far. */
  hit(bucket: string, windowStart: number, windowMs: number): Promise<number>;
  close?(): Promise<void>;
}

export interface RateLimitRule {
  name: string;
  limit: number;
  windowMs: number;
}

export function memoryRateLimitStore(): RateLimitStore {
  const counts = new Map<string, { windowStart: number; hits: number }>();
  return {
    async hit(bucket, windowStart) {
      const current = counts.get(bucket);
      if (current && current.windowStart === windowStart) return ++current.hits;
      if (counts.size > 100_000) for (const [k, v] of counts) if (v.windowStart < windowStart) counts.delete(k);
      counts.set(bucket, { windowStart, hits: 1 });
      return 1;
    },
  };
}

export function postgresRateLimitStore(sql: Sql): RateLimitStore {
  let lastSweep = 0;
  return {
    async hit(bucket, windowStart, windowMs) {
      const [row]: [{ hits: number }?] = await sql`
        INSERT INTO rate_limits (bucket, window_start, hits) VALUES (${bucket}, ${windowStart}, 1)
        ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limits.hits + 1
        RETURNING hits`;
      if (windowStart !== lastSweep) {
        lastSweep = windowStart;
        sql`DELETE FROM rate_limits WHERE window_start < ${windowStart - windowMs}`.catch(() => {});
      }
      return row!.hits;
    },
  };
}

export async function redisRateLimitStore(url: string): Promise<RateLimitStore> {
  const { RedisClient } = await import("bun");
  const client = new RedisClient(url);
  await client.connect();
  return {
    async hit(bucket, windowStart, windowMs) {
      const key = `fl:rl:${bucket}:${windowStart}`;
      const hits = await client.incr(key);
      if (hits === 1) await client.pexpire(key, windowMs * 2);
      return hits;
    },
    async close() {
      client.close();
    },
  };
}

export interface RateLimitOutcome {
  headers: Record<string, string>;
}

/**
 * Counts a hit and returns the IETF `RateLimit` / `RateLimit-Policy` headers
 * (draft-ietf-httpapi-ratelimit-headers), or throws 429 RATE_LIMITED with
 * `Retry-After`. A store outage lets the request through: limits protect the
 * service, they must not take it down.
 */
export async function consume(store: RateLimitStore, key: string, rule: RateLimitRule, now: number): Promise<RateLimitOutcome> {
  const windowStart = Math.floor(now / rule.windowMs) * rule.windowMs;
  const resetSeconds = Math.max(1, Math.ceil((windowStart + rule.windowMs - now) / 1000));
  let hits: number;
  try {
    hits = await store.hit(`${key}:${rule.name}`, windowStart, rule.windowMs);
  } catch {
    return { headers: {} };
  }
  const remaining = Math.max(0, rule.limit - hits);
  const headers = {
    "RateLimit-Policy": `"${rule.name}";q=${rule.limit};w=${rule.windowMs / 1000}`,
    RateLimit: `"${rule.name}";r=${remaining};t=${resetSeconds}`,
  };
  if (hits > rule.limit) throw Errors.rateLimited(resetSeconds, headers);
  return { headers };
}
