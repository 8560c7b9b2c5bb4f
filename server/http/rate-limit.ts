/**
 * Per-token fixed one-minute windows (docs/api.md "Limits"), counted in a store
 * every process shares: Redis when REDIS_URL is set, else Postgres; memory only
 * in embedded mode, which is one process by construction.
 */
import type { Sql } from "../storage/postgres.ts";
import { Errors } from "../errors.ts";

export interface RateLimitStore {
  /** Counts `delta` hits (default 1) in the window and returns the hits so far. */
  hit(bucket: string, windowStart: number, windowMs: number, delta?: number): Promise<number>;
  /** The same without I/O when the store can answer locally; undefined means "call hit". */
  hitNow?(bucket: string, windowStart: number, windowMs: number): number | undefined;
  close?(): Promise<void>;
}

export interface RateLimitRule {
  name: string;
  limit: number;
  windowMs: number;
}

export function memoryRateLimitStore(): RateLimitStore {
  const counts = new Map<string, { windowStart: number; hits: number }>();
  const count = (bucket: string, windowStart: number, delta: number) => {
    const current = counts.get(bucket);
    if (current && current.windowStart === windowStart) return (current.hits += delta);
    if (counts.size > 100_000) for (const [k, v] of counts) if (v.windowStart < windowStart) counts.delete(k);
    counts.set(bucket, { windowStart, hits: delta });
    return delta;
  };
  return {
    async hit(bucket, windowStart, _windowMs, delta = 1) {
      return count(bucket, windowStart, delta);
    },
    hitNow: (bucket, windowStart) => count(bucket, windowStart, 1),
  };
}

export function postgresRateLimitStore(sql: Sql): RateLimitStore {
  let lastSweep = 0;
  return {
    async hit(bucket, windowStart, windowMs, delta = 1) {
      const [row]: [{ hits: number }?] = await sql`
        INSERT INTO rate_limits (bucket, window_start, hits) VALUES (${bucket}, ${windowStart}, ${delta})
        ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limits.hits + EXCLUDED.hits
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
  // No offline queue: while Redis is down a command fails at once (consume then lets
  // the request through) instead of holding the request until Redis returns.
  const client = new RedisClient(url, { connectionTimeout: 5000, maxRetries: 3, enableOfflineQueue: false });
  await client.connect();
  let reconnecting: Promise<void> | undefined;
  return {
    async hit(bucket, windowStart, windowMs, delta = 1) {
      // After its retries the client stays closed; later hits try again in the background.
      if (!client.connected)
        reconnecting ??= client
          .connect()
          .catch(() => {})
          .finally(() => (reconnecting = undefined));
      const key = `fl:rl:${bucket}:${windowStart}`;
      const hits = await client.incrby(key, delta);
      if (hits === delta) await client.pexpire(key, windowMs * 2);
      return hits;
    },
    async close() {
      client.close();
    },
  };
}

/**
 * Puts a local counter in front of a shared store so the hot path makes no
 * round trip: the first hit of a window asks the store for the global count,
 * later hits count locally and are pushed every `flushMs`. Other processes'
 * hits are therefore seen at most `flushMs` late; this process's are exact.
 */
export function batchedRateLimitStore(inner: RateLimitStore, flushMs = 50): RateLimitStore & { flush(): Promise<void> } {
  const windows = new Map<string, { windowStart: number; windowMs: number; known: number; pending: number }>();
  let timer: ReturnType<typeof setTimeout> | undefined;

  const flush = async () => {
    timer = undefined;
    const work = [...windows].filter(([, w]) => w.pending > 0);
    await Promise.all(
      work.map(async ([bucket, w]) => {
        const delta = w.pending;
        w.pending -= delta;
        try {
          w.known = (await inner.hit(bucket, w.windowStart, w.windowMs, delta)) - w.pending;
        } catch {
          w.pending += delta; // try again next time
        }
      }),
    );
  };

  return {
    hitNow(bucket, windowStart) {
      const w = windows.get(bucket);
      if (!w || w.windowStart !== windowStart) return undefined;
      w.pending += 1;
      timer ??= setTimeout(() => void flush(), flushMs);
      return w.known + w.pending;
    },
    async hit(bucket, windowStart, windowMs, delta = 1) {
      let w = windows.get(bucket);
      if (!w || w.windowStart !== windowStart) {
        if (windows.size > 100_000) for (const [k, v] of windows) if (v.windowStart < windowStart && v.pending === 0) windows.delete(k);
        w = { windowStart, windowMs, known: 0, pending: 0 };
        windows.set(bucket, w);
        w.known = await inner.hit(bucket, windowStart, windowMs, delta);
        return w.known + w.pending;
      }
      w.pending += delta;
      timer ??= setTimeout(() => void flush(), flushMs);
      return w.known + w.pending;
    },
    flush,
    async close() {
      if (timer) clearTimeout(timer);
      await flush();
      await inner.close?.();
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
  const bucket = `${key}:${rule.name}`;
  let hits = store.hitNow?.(bucket, windowStart, rule.windowMs);
  if (hits === undefined) {
    try {
      hits = await store.hit(bucket, windowStart, rule.windowMs);
    } catch {
      return { headers: {} };
    }
  }
  return outcome(rule, hits, windowStart, now);
}

/** `consume` for stores that answer locally; undefined when only the async path can tell. */
export function consumeNow(store: RateLimitStore, key: string, rule: RateLimitRule, now: number): RateLimitOutcome | undefined {
  const windowStart = Math.floor(now / rule.windowMs) * rule.windowMs;
  const hits = store.hitNow?.(`${key}:${rule.name}`, windowStart, rule.windowMs);
  return hits === undefined ? undefined : outcome(rule, hits, windowStart, now);
}

const policies = new WeakMap<RateLimitRule, string>();

function policyOf(rule: RateLimitRule): string {
  let policy = policies.get(rule);
  if (policy === undefined) policies.set(rule, (policy = `"${rule.name}";q=${rule.limit};w=${rule.windowMs / 1000}`));
  return policy;
}

function outcome(rule: RateLimitRule, hits: number, windowStart: number, now: number): RateLimitOutcome {
  const resetSeconds = Math.max(1, Math.ceil((windowStart + rule.windowMs - now) / 1000));
  const remaining = Math.max(0, rule.limit - hits);
  const headers = {
    "RateLimit-Policy": policyOf(rule),
    RateLimit: `"${rule.name}";r=${remaining};t=${resetSeconds}`,
  };
  if (hits > rule.limit) throw Errors.rateLimited(resetSeconds, headers);
  return { headers };
}
