import { describe, expect, test } from "bun:test";
import { attributeSales, type MetricsRow, type SaleRow, salesByVideo } from "./metrics.ts";

const group = (g: string, buyers: MetricsRow["buyers"]) => ({ g, buyers }) as MetricsRow;
/** `n` sales of one session, in one currency, of `amount` in all. */
const sale = (video: string, session: string, n: number, currency: string, amount: number): SaleRow[] =>
  Array.from({ length: n }, () => ({ video_id: video, sale_hash: session, currency, amount: amount / n }));

describe("attributeSales", () => {
  const sales = [...sale("1", "s1", 2, "USD", 80), ...sale("1", "s2", 1, "EUR", 30), ...sale("2", "s3", 1, "USD", 10), ...sale("1", "s3", 1, "USD", 5)];

  test("adds each session's sales to its group, per currency; played sessions count as played orders and buyers", () => {
    const [a, b] = attributeSales(
      [
        group("a", [
          ["1", "s1", 1],
          ["1", "s2", 0],
        ]),
        group("b", [["1", "s3", 1]]),
      ],
      sales,
      { kind: "video" },
    );
    expect(a).toMatchObject({ orders: { USD: 2, EUR: 1 }, revenue: { USD: 80, EUR: 30 }, played_orders: 2, played_buyers: 1 });
    // Session s3 of video 1 has one sale; the sale of video 2's session s3 is not its own.
    expect(b).toMatchObject({ orders: { USD: 1 }, revenue: { USD: 5 }, played_orders: 1, played_buyers: 1 });
  });

  test("grouped by split-test variation, a session's sales are those of any video of the scope", () => {
    const [v] = attributeSales([group("t:1", [["1", "s3", 1]])], sales, { kind: "split_test", daily: false });
    expect(v).toMatchObject({ orders: { USD: 2 }, revenue: { USD: 15 }, played_orders: 2, played_buyers: 1 });
  });

  test("a session with a sale row that does not count (unverified, a test) and a group without buyers add nothing", () => {
    const [x, y] = attributeSales([group("x", [["1", "s9", 1]]), group("y", [])], sales, { kind: "video" });
    for (const row of [x, y]) expect(row).toMatchObject({ orders: {}, revenue: {}, played_orders: 0, played_buyers: 0 });
  });
});

describe("salesByVideo", () => {
  test("every sale of each video per currency, traced to a session or not; a sale without a currency is its own", () => {
    const sales: SaleRow[] = [
      { video_id: "1", sale_hash: "s1", currency: "USD", amount: 40 },
      { video_id: "1", sale_hash: "0", currency: "USD", amount: 10 },
      { video_id: "1", sale_hash: "0", currency: "", amount: 5 },
      { video_id: "2", sale_hash: "s3", currency: "EUR", amount: 7 },
    ];
    const byVideo = salesByVideo(sales);
    expect(byVideo.get(1)).toEqual({ orders: { USD: 2, "": 1 }, revenue: { USD: 50, "": 5 } });
    expect(byVideo.get(2)).toEqual({ orders: { EUR: 1 }, revenue: { EUR: 7 } });
  });

  test("a sale traced to no session is in no group", () => {
    const [row] = attributeSales([group("g", [["1", "0", 1]])], [{ video_id: "1", sale_hash: "0", currency: "USD", amount: 9 }], { kind: "video" });
    expect(row).toMatchObject({ orders: {}, played_orders: 0 });
  });
});
