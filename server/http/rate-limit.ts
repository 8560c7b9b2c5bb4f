/**
 * Per-token fixed one-minute windows (docs/api.md "Limits"), counted in a store
 * every process shares: Redis when REDIS_URL is set, else Postgres; memory only
 * in embedded mode, which is one process by construction.
 *
 * A process never answers a hit the shared count has not made room for: it
 * reserves hits in the shared store (one atomic `INCRBY`/upsert for several) and
 * spends them locally, and the size of a reservation shrinks as the window fills,
 * so N processes together never let more than the limit through, and the hot path
 * makes a round trip only once per reservation (README "Running on several machines").
 */
import type { Sql } from "../storage/postgres.ts";
import { Errors } from "../errors.ts";

export interface RateLimitRule {
  name: string;
  limit: number;
  windowMs: number;
}

/** What `consume` counts with. */
export interface RateLimitStore {
  /** Counts one hit and returns the window's count including it, or undefined when only `take` can tell (nothing counted then). */
  takeNow(bucket: string, windowStart: number, rule: RateLimitRule): number | undefined;
  /** Counts one hit and returns the window's count including it. */
  take(bucket: string, windowStart: number, rule: RateLimitRule): Promise<number>;
  close?(): Promise<void>;
}

/** A count every process shares: `add` is atomic and returns the total after it. */
export interface SharedCounter {
  add(bucket: string, windowStart: number, windowMs: number, delta: number): Promise<number>;
  close?(): Promise<void>;
}

export function memoryRateLimitStore(): RateLimitStore {
  const counts = new Map<string, { windowStart: number; hits: number }>();
  const count = (bucket: string, windowStart: number) => {
    const current = counts.get(bucket);
    if (current && current.windowStart === windowStart) return ++current.hits;
    if (counts.size > 100_000) for (const [k, v] of counts) if (v.windowStart < windowStart) counts.delete(k);
    counts.set(bucket, { windowStart, hits: 1 });
    return 1;
  };
  return { takeNow: count, take: async (bucket, windowStart) => count(bucket, windowStart) };
}

export function postgresCounter(sql: Sql): SharedCounter {
  let lastSweep = 0;
  return {
    async add(bucket, windowStart, windowMs, delta) {
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

/** INCRBY and, for the window's first hits, its expiry, in one atomic step. */
const ADD_SCRIPT = `local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if n == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return n`;

export async function redisCounter(url: string): Promise<SharedCounter> {
  const { RedisClient } = await import("bun");
  // No offline queue: while Redis is down a command fails at once (consume then lets
  // the request through) instead of holding the request until Redis returns.
  const client = new RedisClient(url, { connectionTimeout: 5000, maxRetries: 3, enableOfflineQueue: false });
  await client.connect();
  let reconnecting: Promise<void> | undefined;
  return {
    async add(bucket, windowStart, windowMs, delta) {
      // After its retries the client stays closed; later hits try again in the background.
      if (!client.connected)
        reconnecting ??= client
          .connect()
          .catch(() => {})
          .finally(() => (reconnecting = undefined));
      const hits = await client.send("EVAL", [ADD_SCRIPT, "1", `fl:rl:${bucket}:${windowStart}`, String(delta), String(windowMs * 2)]);
      return Number(hits);
    },
    async close() {
      client.close();
    },
  };
}

/**
 * How many hits to reserve at once: a sixteenth of what is left of the limit,
 * from 1 to 64. Early in a window a process asks rarely; near the limit it asks
 * for one at a time, so hits reserved and never spent (by a process that goes
 * quiet) keep at most a few requests of the window from being answered.
 */
export function reservationSize(limit: number, known: number): number {
  return Math.max(1, Math.min(64, Math.floor((limit - known) / 16)));
}

interface Reserved {
  windowStart: number;
  /** Hits reserved in the shared count and not yet spent here. */
  left: number;
  /** The shared count as far as this process knows, its unspent reservations included (at most the limit). */
  known: number;
  /** The shared count reached the limit: nothing more can be reserved in this window. */
  full: boolean;
  /** The reservation on its way: requests that find nothing left wait for it rather than each asking. */
  pending?: Promise<void>;
}

/** Spends hits reserved in a shared counter; see the file's comment. */
export function reservingRateLimitStore(counter: SharedCounter): RateLimitStore {
  const windows = new Map<string, Reserved>();
  // A spent hit's place in the window: the known count less what is still reserved here.
  const spend = (w: Reserved) => (w.left--, w.known - w.left);
  const reserve = async (w: Reserved, bucket: string, rule: RateLimitRule) => {
    const asked = reservationSize(rule.limit, w.known);
    const total = await counter.add(bucket, w.windowStart, rule.windowMs, asked);
    // Of the hits reserved, only those that fit under the limit may be answered.
    const before = total - asked;
    const granted = Math.max(0, Math.min(asked, rule.limit - before));
    w.known = Math.max(w.known, before + granted);
    w.left += granted;
    if (before + granted >= rule.limit) w.full = true;
  };
  return {
    takeNow(bucket, windowStart, rule) {
      const w = windows.get(bucket);
      if (!w || w.windowStart !== windowStart) return undefined;
      if (w.left > 0) return spend(w);
      return w.full ? rule.limit + 1 : undefined;
    },
    async take(bucket, windowStart, rule) {
      let w = windows.get(bucket);
      if (!w || w.windowStart !== windowStart) {
        if (windows.size > 100_000) for (const [k, v] of windows) if (v.windowStart < windowStart && !v.pending) windows.delete(k);
        w = { windowStart, left: 0, known: 0, full: false };
        windows.set(bucket, w);
      }
      for (;;) {
        if (w.left > 0) return spend(w);
        if (w.full) return rule.limit + 1;
        if (!w.pending) {
          const window = w;
          window.pending = reserve(window, bucket, rule).finally(() => (window.pending = undefined));
        }
        await w.pending;
      }
    },
    async close() {
      await counter.close?.();
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
  let hits = store.takeNow(bucket, windowStart, rule);
  if (hits === undefined) {
    try {
      hits = await store.take(bucket, windowStart, rule);
    } catch {
      return { headers: {} };
    }
  }
  return outcome(rule, hits, windowStart, now);
}

/** `consume` for stores that answer locally; undefined (and nothing counted) when only the async path can tell. */
export function consumeNow(store: RateLimitStore, key: string, rule: RateLimitRule, now: number): RateLimitOutcome | undefined {
  const windowStart = Math.floor(now / rule.windowMs) * rule.windowMs;
  const hits = store.takeNow(`${key}:${rule.name}`, windowStart, rule);
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
