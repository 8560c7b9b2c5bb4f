import { describe, expect, test } from "bun:test";
import { STORED_MASK_BUCKETS, storedBucketsFor } from "./queries.ts";

describe("storedBucketsFor", () => {
  test("100, 20 and 4 buckets take the stored bucket under each midpoint", () => {
    expect(storedBucketsFor(100)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(storedBucketsFor(20)).toEqual([2, 7, 12, 17, 22, 27, 32, 37, 42, 47, 52, 57, 62, 67, 72, 77, 82, 87, 92, 97]);
    expect(storedBucketsFor(4)).toEqual([12, 37, 62, 87]);
  });

  test("each bucket's midpoint is its stored bucket's midpoint", () => {
    for (const n of [100, 20, 4]) storedBucketsFor(n)!.forEach((j, i) => expect((j + 0.5) / STORED_MASK_BUCKETS).toBeCloseTo((i + 0.5) / n, 12));
  });

  test("a midpoint on a stored bucket's edge (an even 100 / N) or between buckets is not stored", () => {
    for (const n of [1, 2, 5, 10, 25, 50, 30, 150, 200]) expect(storedBucketsFor(n)).toBeUndefined();
  });
});
