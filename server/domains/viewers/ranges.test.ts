import { expect, test } from "bun:test";
import { furthestPercent, heatmapCounts, joinRanges } from "./ranges.ts";

test("pieces a heartbeat split join; a seek starts a new stretch", () => {
  expect(
    joinRanges([
      [0, 2],
      [2, 4.1],
      [4.1, 5.2],
      [0, 2],
      [2, 5.1],
      [10, 12],
      [12, 15],
    ]),
  ).toEqual([
    [0, 5.2],
    [0, 5.1],
    [10, 15],
  ]);
  expect(joinRanges([])).toEqual([]);
});

test("a part counts when a range covers its middle; skipped parts stay 0", () => {
  const ranges: [number, number][] = [
    [0, 5.2],
    [0, 5.1],
    [10, 15],
    [0, 4.2],
  ];
  expect(heatmapCounts(ranges, 15, 15)).toEqual([3, 3, 3, 3, 2, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
  // Coarser parts: 0-5 (middle 2.5), 5-10 (7.5), 10-15 (12.5).
  expect(heatmapCounts(ranges, 15, 3)).toEqual([3, 0, 1]);
  // Pieces of one stretch count once.
  expect(
    heatmapCounts(
      [
        [0, 2],
        [2, 4],
      ],
      4,
      4,
    ),
  ).toEqual([1, 1, 1, 1]);
  expect(heatmapCounts([[0, 3]], 0, 4)).toEqual([0, 0, 0, 0]);
  // A range past the end (a rounded duration) stays inside.
  expect(heatmapCounts([[0, 20]], 10, 2)).toEqual([1, 1]);
});

test("furthest percent is capped and whole", () => {
  expect(furthestPercent(15, 15)).toBe(100);
  expect(furthestPercent(15.1, 15)).toBe(100);
  expect(furthestPercent(4.2, 15)).toBe(28);
  expect(furthestPercent(3, 0)).toBe(0);
});
