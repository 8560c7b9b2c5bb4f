import { describe, expect, test } from "bun:test";
import { backoffMs, createOutbox, MAX_ITEMS, type OutboxEnvironment, retryable } from "./outbox.ts";

/** A page whose network answers as the test says, whose storage is a Map and whose timers the test runs. */
function page(answers: (() => number | "offline")[] = []) {
  const sent: string[] = [];
  const beacons: string[] = [];
  const store = new Map<string, string>();
  const timers: { run: () => void; ms: number }[] = [];
  let next = 0;
  const env: OutboxEnvironment = {
    fetch: async (_url, init) => {
      sent.push(String(init.body));
      const answer = (answers[next++] ?? (() => 200))();
      if (answer === "offline") throw new TypeError("Failed to fetch");
      return { ok: answer < 300, status: answer };
    },
    beacon: (_url, body) => (beacons.push(body), true),
    load: (key) => store.get(key) ?? null,
    save: (key, value) => (value === null ? store.delete(key) : store.set(key, value)),
    setTimeout: (run, ms) => timers.push({ run, ms }),
    random: () => 0.5,
  };
  const settle = () => new Promise((r) => setTimeout(r, 0));
  const tick = async () => {
    const timer = timers.shift();
    timer?.run();
    await settle();
    return timer?.ms;
  };
  return { env, sent, beacons, store, timers, settle, tick };
}

const URL = "https://events.example/v1/collect";

describe("backoff", () => {
  test("doubles from one second to a minute, with jitter between half and all of it", () => {
    expect([1, 2, 3, 4].map((attempt) => backoffMs(attempt, 1))).toEqual([1000, 2000, 4000, 8000]);
    expect([backoffMs(3, 0), backoffMs(3, 0.5)]).toEqual([2000, 3000]);
    expect([backoffMs(20, 1), backoffMs(20, 0)]).toEqual([60_000, 30_000]);
  });

  test("a network failure, a 5xx, 408 and 429 are retried; 2xx and other 4xx are not", () => {
    for (const status of [0, 408, 429, 500, 502, 503]) expect(retryable(status)).toBe(true);
    for (const status of [200, 202, 400, 404, 413, 422]) expect(retryable(status)).toBe(false);
  });
});

describe("Outbox", () => {
  test("bodies go one at a time, oldest first; a failed one is retried after a backoff before the next goes", async () => {
    const p = page([() => "offline", () => 503, () => 200, () => 200]);
    const outbox = createOutbox(URL, p.env);
    outbox.send({ seq: 1 });
    outbox.send({ seq: 2 });
    await p.settle();
    expect(p.sent).toEqual(['{"seq":1}']);
    expect(await p.tick()).toBe(750);
    expect(p.sent).toEqual(['{"seq":1}', '{"seq":1}']);
    expect(await p.tick()).toBe(1500);
    await p.settle();
    expect(p.sent).toEqual(['{"seq":1}', '{"seq":1}', '{"seq":1}', '{"seq":2}']);
    expect(outbox.pending).toBe(0);
    expect(p.store.size).toBe(0);
  });

  test("a body the events host refuses for what it is (4xx) leaves the queue; the next one goes", async () => {
    const p = page([() => 422, () => 200]);
    const outbox = createOutbox(URL, p.env);
    outbox.send({ bad: true });
    outbox.send({ good: true });
    await p.settle();
    await p.settle();
    expect(p.sent).toEqual(['{"bad":true}', '{"good":true}']);
    expect(outbox.pending).toBe(0);
  });

  test("what waits is kept in storage: the next page view sends it", async () => {
    const p = page([() => "offline"]);
    createOutbox(URL, p.env).send({ seq: 7 });
    await p.settle();
    expect(JSON.parse(p.store.get(`fl:outbox:${URL}`)!)).toEqual(['{"seq":7}']);
    // The page goes; a later one (same storage, a network that answers) finds it and sends it.
    const later = page();
    for (const [k, v] of p.store) later.store.set(k, v);
    const outbox = createOutbox(URL, later.env);
    await later.settle();
    expect(later.sent).toEqual(['{"seq":7}']);
    expect(outbox.pending).toBe(0);
    expect(later.store.size).toBe(0);
  });

  test("at unload every waiting body leaves by beacon too, and stays queued", async () => {
    const p = page([() => "offline"]);
    const outbox = createOutbox(URL, p.env);
    outbox.send({ seq: 1 });
    outbox.send({ seq: 2 });
    await p.settle();
    outbox.beaconAll();
    expect(p.beacons).toEqual(['{"seq":1}', '{"seq":2}']);
    expect(outbox.pending).toBe(2);
  });

  test("bounded: past the most it keeps, the oldest waiting body goes", async () => {
    const p = page(Array.from({ length: 200 }, () => () => "offline" as const));
    const outbox = createOutbox(URL, p.env);
    for (let i = 0; i < MAX_ITEMS + 10; i++) outbox.send({ i });
    expect(outbox.pending).toBe(MAX_ITEMS);
    const kept = JSON.parse(p.store.get(`fl:outbox:${URL}`)!) as string[];
    // The one in flight stays; the next oldest went.
    expect(kept[0]).toBe('{"i":0}');
    expect(kept[1]).toBe('{"i":11}');
  });
});
