/** docs/api.md "Limits": 600 reads and 60 writes per minute per token, in a store every process shares. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectPostgres, type Sql } from "../../server/storage/postgres.ts";
import {
  consume,
  memoryRateLimitStore,
  postgresCounter,
  redisCounter,
  reservingRateLimitStore,
  type RateLimitStore,
  type SharedCounter,
} from "../../server/http/rate-limit.ts";
import { testApp, type TestApp } from "../helpers/app.ts";
import { getEngines } from "../helpers/engines.ts";

const REDIS_URL = "redis://127.0.0.1:6379";
const MINUTE = 60_000;

/**
 * A clock parked 5 s into a minute, so a test's calls never straddle two windows.
 * The minute is a random one ahead, so runs sharing one Redis never share a window.
 */
function parkedClock() {
  const minute = Math.floor(Date.now() / MINUTE) + 1 + Math.floor(Math.random() * 1_000_000);
  const clock = { ms: minute * MINUTE + 5_000, now: () => clock.ms };
  return clock;
}

/** A loopback port nothing listens on, as the system picks one. */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

/** A write that costs nothing beyond the limiter: a non-numeric id is a 404 before any query. */
const cheapWrite = (t: TestApp, token: string) => t.call("DELETE", "/api/v1/videos/none", { token });
const cheapRead = (t: TestApp, token: string) => t.call("GET", "/api/v1/videos/none", { token });

function expectLimited(res: { status: number; body: any; headers: Headers }, kind: "reads" | "writes", limit: number) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: { code: "RATE_LIMITED", message: expect.any(String) } });
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.headers.get("ratelimit")).toBe(`"${kind}";r=0;t=${retryAfter}`);
  expect(res.headers.get("ratelimit-policy")).toBe(`"${kind}";q=${limit};w=60`);
}

describe("per-token limits on the application API", () => {
  let t: TestApp;
  let clock: ReturnType<typeof parkedClock>;
  beforeAll(async () => {
    clock = parkedClock();
    t = await testApp({ clock });
  }, 60_000);

  test("the 61st write in a minute is 429 RATE_LIMITED with Retry-After and RateLimit headers, and writes nothing", async () => {
    const ws = await t.workspace();
    const first = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "counted" } });
    expect(first.status).toBe(201);
    expect(first.headers.get("ratelimit-policy")).toBe(`"writes";q=60;w=60`);
    expect(first.headers.get("ratelimit")).toBe(`"writes";r=59;t=55`);
    for (let i = 2; i <= 60; i++) expect((await cheapWrite(t, ws.token)).status).toBe(404);
    const over = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "one too many" } });
    expectLimited(over, "writes", 60);
    expect(Number(over.headers.get("retry-after"))).toBe(55);
    const [{ n }] = await t.deps.sql`SELECT count(*)::int AS n FROM videos WHERE workspace_id = ${ws.id} AND title = 'one too many'`;
    expect(n).toBe(0);
    // Reads have their own budget.
    expect((await t.call("GET", "/api/v1/videos", { token: ws.token })).status).toBe(200);
    // Another token of the same workspace has its own budget too.
    const other = await ws.mint(["videos:write"]);
    expect((await t.call("POST", "/api/v1/videos", { token: other.secret, body: { title: "other token" } })).status).toBe(201);
    // The next window starts afresh.
    clock.ms += MINUTE;
    expect((await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "next minute" } })).status).toBe(201);
    clock.ms -= MINUTE;
  });

  test("the 601st read in a minute is 429", async () => {
    const ws = await t.workspace();
    for (let i = 1; i <= 599; i++) expect((await cheapRead(t, ws.token)).status).toBe(404);
    const last = await t.call("GET", "/api/v1/videos", { token: ws.token });
    expect(last.status).toBe(200);
    expect(last.headers.get("ratelimit")).toBe(`"reads";r=0;t=55`);
    expectLimited(await t.call("GET", "/api/v1/videos", { token: ws.token }), "reads", 600);
    expectLimited(await t.call("GET", "/api/v1/folders", { token: ws.token }), "reads", 600);
    // Writes are untouched by the read budget.
    expect((await t.call("POST", "/api/v1/folders", { token: ws.token, body: { name: "still writable" } })).status).toBe(201);
  });

  test("the legacy key has its own budget, and its 429 still carries Deprecation", async () => {
    const ws = await t.workspace();
    for (let i = 1; i <= 60; i++) expect((await cheapWrite(t, ws.legacyKey)).status).toBe(404);
    const over = await cheapWrite(t, ws.legacyKey);
    expectLimited(over, "writes", 60);
    expect(over.headers.get("deprecation")).toBeTruthy();
    expect((await cheapWrite(t, ws.token)).status).toBe(404);
  });
});

/** Two store instances over one backend stand for two processes. */
async function expectSharedCounting(a: RateLimitStore, b: RateLimitStore) {
  const key = `test-${crypto.randomUUID()}`;
  const rule = { name: "writes", limit: 60, windowMs: MINUTE };
  const now = Date.now();
  for (let i = 0; i < 30; i++) await consume(a, key, rule, now);
  for (let i = 0; i < 30; i++) await consume(b, key, rule, now);
  let error: any;
  await consume(b, key, rule, now).catch((e) => (error = e));
  expect(error?.status).toBe(429);
  expect(error?.body.error.code).toBe("RATE_LIMITED");
  // Another key is counted apart.
  expect((await consume(a, `${key}-other`, rule, now)).headers.RateLimit).toStartWith(`"writes";r=59;t=`);
}

/** Two app instances stand for two processes: a hit is counted in the shared store before it is answered. */
async function expectSharedBudget(a: TestApp, b: TestApp) {
  const ws = await a.workspace();
  for (let i = 0; i < 30; i++) expect((await cheapWrite(a, ws.token)).status).toBe(404);
  for (let i = 0; i < 30; i++) expect((await cheapWrite(b, ws.token)).status).toBe(404);
  expectLimited(await cheapWrite(b, ws.token), "writes", 60);
  expectLimited(await cheapWrite(a, ws.token), "writes", 60);
}

/**
 * Four processes (stores) over one shared counter take a burst of 800 hits at once
 * against a limit of 600: together they answer at most the limit, and leave at most
 * a few of it unanswered (hits reserved by one process while the others ran out).
 */
async function expectBurstWithinLimit(counters: SharedCounter[]) {
  const stores = counters.map(reservingRateLimitStore);
  const rule = { name: "reads", limit: 600, windowMs: MINUTE };
  const key = `burst-${crypto.randomUUID()}`;
  const now = Date.now();
  const answers = await Promise.all(
    Array.from({ length: 800 }, (_, i) =>
      consume(stores[i % stores.length]!, key, rule, now).then(
        () => true,
        () => false,
      ),
    ),
  );
  const through = answers.filter(Boolean).length;
  expect(through).toBeLessThanOrEqual(600);
  expect(through).toBeGreaterThanOrEqual(600 - 4 * 4);
}

describe("stores", () => {
  test("memory: counts within one instance (embedded mode is a single process)", async () => {
    const store = memoryRateLimitStore();
    const rule = { name: "writes", limit: 3, windowMs: MINUTE };
    const now = Date.now();
    for (let i = 0; i < 3; i++) await consume(store, "k", rule, now);
    await expect(consume(store, "k", rule, now)).rejects.toMatchObject({ status: 429 });
    await consume(store, "k", rule, now + MINUTE);
  });

  describe("postgres", () => {
    let one: Sql;
    let two: Sql;
    beforeAll(async () => {
      const engines = await getEngines();
      one = connectPostgres(engines.databaseUrl, { max: 2 });
      two = connectPostgres(engines.databaseUrl, { max: 2 });
    }, 60_000);
    afterAll(async () => {
      await one?.end({ timeout: 2 });
      await two?.end({ timeout: 2 });
    });

    test("two stores on two connection pools share one count", async () => {
      await expectSharedCounting(reservingRateLimitStore(postgresCounter(one)), reservingRateLimitStore(postgresCounter(two)));
    });

    test("four processes on the Postgres store answer at most the limit of a burst", async () => {
      await expectBurstWithinLimit([postgresCounter(one), postgresCounter(two), postgresCounter(one), postgresCounter(two)]);
    });

    test("two app instances on the Postgres store share one token budget", async () => {
      const engines = await getEngines();
      const clock = parkedClock();
      const a = await testApp({ clock, config: { databaseUrl: engines.databaseUrl } });
      const b = await testApp({ clock, config: { databaseUrl: engines.databaseUrl } });
      try {
        await expectSharedBudget(a, b);
      } finally {
        await a.deps.close();
        await b.deps.close();
      }
    });
  });

  describe("redis", () => {
    test("an outage lets requests through at once, and counting resumes when Redis is back", async () => {
      // A port the system hands out as free (a fixed range once held the machine's own Redis at 6379).
      const port = freePort();
      const start = () =>
        Bun.spawn(["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdout: "ignore", stderr: "ignore" });
      let server = start();
      try {
        let store: RateLimitStore | undefined;
        for (let i = 0; i < 50 && !store; i++)
          store = await redisCounter(`redis://127.0.0.1:${port}`).then(reservingRateLimitStore, async () => (await Bun.sleep(100), undefined));
        expect(store).toBeDefined();
        const rule = { name: "writes", limit: 5, windowMs: MINUTE };
        const now = Date.now();
        expect((await consume(store!, "outage", rule, now)).headers.RateLimit).toStartWith(`"writes";r=4;`);
        server.kill();
        await server.exited;
        const started = Date.now();
        for (let i = 0; i < 10; i++) expect(await consume(store!, "outage", rule, now)).toEqual({ headers: {} });
        expect(Date.now() - started).toBeLessThan(2000);
        server = start();
        let headers: Record<string, string> = {};
        for (let i = 0; i < 50 && !headers.RateLimit; i++) {
          await Bun.sleep(100);
          headers = (await consume(store!, "outage", rule, now)).headers;
        }
        expect(headers.RateLimit).toStartWith(`"writes";r=`);
        await store!.close?.();
      } finally {
        server.kill();
        await server.exited;
      }
    }, 30_000);

    // REDIS_URL runs on this machine: if it is unreachable these tests fail, they do not skip.
    test("two clients share one count", async () => {
      const a = reservingRateLimitStore(await redisCounter(REDIS_URL));
      const b = reservingRateLimitStore(await redisCounter(REDIS_URL));
      try {
        await expectSharedCounting(a, b);
      } finally {
        await a.close?.();
        await b.close?.();
      }
    });

    test("four processes with REDIS_URL answer at most the limit of a burst", async () => {
      const counters = await Promise.all([0, 1, 2, 3].map(() => redisCounter(REDIS_URL)));
      try {
        await expectBurstWithinLimit(counters);
      } finally {
        for (const c of counters) await c.close?.();
      }
    });

    test("two app instances with REDIS_URL share one token budget", async () => {
      const clock = parkedClock();
      const a = await testApp({ clock, config: { redisUrl: REDIS_URL } });
      const b = await testApp({ clock, config: { redisUrl: REDIS_URL } });
      try {
        await expectSharedBudget(a, b);
      } finally {
        await a.deps.close();
        await b.deps.close();
      }
    });
  });
});
