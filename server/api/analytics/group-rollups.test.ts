import { expect, test } from "bun:test";
import fc from "fast-check";
import { addSealedSales, quantilesOfHistogram } from "./group-rollups.ts";
import type { MetricsRow } from "./metrics.ts";

/** ClickHouse's quantileExact over the values themselves: index floor(level * n) of the sorted values, the last for level 1. */
function quantileExact(values: number[], level: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[level < 1 ? Math.floor(level * sorted.length) : sorted.length - 1]!;
}

test("quantiles of a histogram are those of the values it counts", () => {
  expect(quantilesOfHistogram([300, 100, 200], [1, 2, 1], [0.5, 0.95])).toEqual([200, 300]);
  expect(quantilesOfHistogram([50], [3], [0, 0.5, 1])).toEqual([50, 50, 50]);
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 200 }), fc.constantFrom(0, 0.25, 0.5, 0.95, 0.99, 1), (values, level) => {
      const counts = new Map<number, number>();
      for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
      const [q] = quantilesOfHistogram([...counts.keys()], [...counts.values()], [level]);
      expect(q).toBe(quantileExact(values, level));
    }),
  );
});

test("the sealed sessions' money adds to what attributeSales found for the sessions read", () => {
  const row = {
    orders: { USD: 1 },
    revenue: { USD: 10 },
    played_orders: 1,
    sealed: { orders: { USD: "2", EUR: "1" }, revenue: { USD: 5.5, EUR: "3" }, played_orders: { USD: "2", EUR: 1 } },
  };
  const out = addSealedSales(row as unknown as MetricsRow & { sealed: typeof row.sealed });
  expect(out.orders).toEqual({ USD: 3, EUR: 1 });
  expect(out.revenue).toEqual({ USD: 15.5, EUR: 3 });
  expect(out.played_orders).toBe(4);
  expect("sealed" in out).toBe(false);
});
