import { describe, expect, test } from "bun:test";
import { percentileOf, pickVariation } from "./assign.ts";

const id = () => crypto.randomUUID().replace(/-/g, "");

describe("pickVariation", () => {
  test("the same device gets the same variation every time", () => {
    const device = id();
    const first = pickVariation("test-a", device, [50, 50]);
    for (let i = 0; i < 20; i++) expect(pickVariation("test-a", device, [50, 50])).toBe(first);
  });

  test("viewers split by weight", () => {
    const counts = [0, 0, 0];
    const n = 20_000;
    for (let i = 0; i < n; i++) counts[pickVariation("test-b", id(), [20, 30, 50])]!++;
    // Binomial standard deviations are under 0.4 percentage points here: 1.5 points is far outside chance.
    expect(Math.abs(counts[0]! / n - 0.2)).toBeLessThan(0.015);
    expect(Math.abs(counts[1]! / n - 0.3)).toBeLessThan(0.015);
    expect(Math.abs(counts[2]! / n - 0.5)).toBeLessThan(0.015);
  });

  test("percentiles cover 0..99 and tests hash independently", () => {
    const seen = new Set<number>();
    let same = 0;
    for (let i = 0; i < 5000; i++) {
      const device = id();
      const p = percentileOf("test-c", device);
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThan(100);
      seen.add(p);
      if (pickVariation("test-c", device, [50, 50]) === pickVariation("test-d", device, [50, 50])) same++;
    }
    expect(seen.size).toBe(100);
    // Independent tests agree about half the time, not always.
    expect(same / 5000).toBeGreaterThan(0.45);
    expect(same / 5000).toBeLessThan(0.55);
  });
});
