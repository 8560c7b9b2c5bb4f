import { describe, expect, test } from "bun:test";
import { consume, reservationSize, reservingRateLimitStore, type SharedCounter } from "./rate-limit.ts";

/** A shared counter in memory that counts its round trips. */
function counter(): SharedCounter & { trips: number } {
  const totals = new Map<string, number>();
  return {
    trips: 0,
    async add(bucket, windowStart, _windowMs, delta) {
      this.trips++;
      const key = `${bucket}:${windowStart}`;
      const total = (totals.get(key) ?? 0) + delta;
      totals.set(key, total);
      return total;
    },
  };
}

const rule = { name: "reads", limit: 100, windowMs: 60_000 };

describe("reservationSize", () => {
  test("a sixteenth of what is left, from 1 to 64", () => {
    expect(reservationSize(600, 0)).toBe(37);
    expect(reservationSize(10_000, 0)).toBe(64);
    expect(reservationSize(100, 90)).toBe(1);
    expect(reservationSize(100, 100)).toBe(1);
    expect(reservationSize(100, 150)).toBe(1);
  });
});

describe("reservingRateLimitStore", () => {
  test("answers the limit exactly, then refuses; a round trip per reservation, not per hit", async () => {
    const shared = counter();
    const store = reservingRateLimitStore(shared);
    const now = 1_000_000;
    const remaining: string[] = [];
    for (let i = 0; i < 100; i++) remaining.push((await consume(store, "k", rule, now)).headers.RateLimit!);
    expect(remaining[0]).toStartWith(`"reads";r=99;`);
    expect(remaining[99]).toStartWith(`"reads";r=0;`);
    await expect(consume(store, "k", rule, now)).rejects.toMatchObject({ status: 429 });
    // Far from a limit, 64 hits per reservation.
    const roomy = { ...rule, limit: 100_000 };
    const before = shared.trips;
    for (let i = 0; i < 1000; i++) await consume(store, "k2", roomy, now);
    expect(shared.trips - before).toBe(Math.ceil(1000 / 64));
  });

  test("two processes over one counter: hits reserved by one are never answered by the other, and the sum stays within the limit", async () => {
    const shared = counter();
    const a = reservingRateLimitStore(shared);
    const b = reservingRateLimitStore(shared);
    const now = 2_000_000;
    let through = 0;
    for (let i = 0; i < 300; i++) {
      const store = i % 3 === 0 ? b : a;
      await consume(store, "k", rule, now).then(
        () => through++,
        () => {},
      );
    }
    expect(through).toBeLessThanOrEqual(100);
    expect(through).toBeGreaterThanOrEqual(98);
  });

  test("a new window starts from zero", async () => {
    const store = reservingRateLimitStore(counter());
    for (let i = 0; i < 100; i++) await consume(store, "k", rule, 60_000);
    await expect(consume(store, "k", rule, 60_000)).rejects.toMatchObject({ status: 429 });
    expect((await consume(store, "k", rule, 120_000)).headers.RateLimit).toStartWith(`"reads";r=99;`);
  });

  test("the counter down lets the request through, and counting resumes when it answers", async () => {
    let down = true;
    const inner = counter();
    const flaky: SharedCounter = { add: (...args) => (down ? Promise.reject(new Error("ECONNREFUSED")) : inner.add(...args)) };
    const store = reservingRateLimitStore(flaky);
    expect(await consume(store, "k", rule, 0)).toEqual({ headers: {} });
    down = false;
    expect((await consume(store, "k", rule, 0)).headers.RateLimit).toStartWith(`"reads";r=99;`);
  });
});
