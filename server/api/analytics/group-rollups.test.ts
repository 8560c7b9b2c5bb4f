import { expect, test } from "bun:test";
import { addSealedSales } from "./group-rollups.ts";
import type { MetricsRow } from "./metrics.ts";

test("the sealed sessions' money adds to what attributeSales found for the sessions read", () => {
  const row = {
    orders: { USD: 1 },
    revenue: { USD: 10 },
    played_orders: 1,
    played_buyers: 1,
    sealed: { orders: { USD: "2", EUR: "1" }, revenue: { USD: 5.5, EUR: "3" }, played_orders: { USD: "2", EUR: 1 }, sealed_played_buyers: "2" },
  };
  const out = addSealedSales(row as unknown as MetricsRow & { sealed: typeof row.sealed });
  expect(out.orders).toEqual({ USD: 3, EUR: 1 });
  expect(out.revenue).toEqual({ USD: 15.5, EUR: 3 });
  expect(out.played_orders).toBe(4);
  expect(out.played_buyers).toBe(3);
  expect("sealed" in out).toBe(false);
});
