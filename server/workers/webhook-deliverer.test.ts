import { describe, expect, test } from "bun:test";
import { MAX_ATTEMPTS, nextDelay, RETRY_SCHEDULE_MS } from "./webhook-deliverer.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;

describe("nextDelay (the retry schedule of README Webhooks)", () => {
  test("after attempts 1 to 7: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h without jitter", () => {
    const middle = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => nextDelay(n, undefined, middle))).toEqual([5_000, 5 * MIN, 30 * MIN, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]);
  });

  test("jitter stays within ±10 %", () => {
    for (const [n, base] of RETRY_SCHEDULE_MS.entries()) {
      expect(nextDelay(n + 1, undefined, () => 0)).toBe(Math.round(base * 0.9));
      expect(nextDelay(n + 1, undefined, () => 0.999999)).toBeLessThanOrEqual(Math.round(base * 1.1));
    }
  });

  test("the 8th attempt is the last: no delay after it", () => {
    expect(MAX_ATTEMPTS).toBe(8);
    expect(nextDelay(8, undefined, () => 0.5)).toBeUndefined();
    expect(nextDelay(9, 5_000, () => 0.5)).toBeUndefined();
  });

  test("a longer Retry-After wins, capped at 24 h; a shorter one does not shorten the schedule", () => {
    expect(nextDelay(1, 90_000, () => 0.5)).toBe(90_000);
    expect(nextDelay(1, 1_000, () => 0.5)).toBe(5_000);
    expect(nextDelay(2, 72 * HOUR, () => 0.5)).toBe(24 * HOUR);
  });
});
