import { describe, expect, test } from "bun:test";
import { MIN_CONVERSIONS, winnerOf } from "./split-test.ts";

describe("winnerOf", () => {
  test("undecided below the minimum, however lopsided", () => {
    expect(
      winnerOf([
        { variation: "a", conversions: MIN_CONVERSIONS - 1 },
        { variation: "b", conversions: 0 },
      ]),
    ).toBeUndefined();
  });
  test("decided when the leader beats the runner-up at 95 %", () => {
    // (64 - 36) / sqrt(100) = 2.8
    expect(
      winnerOf([
        { variation: "a", conversions: 36 },
        { variation: "b", conversions: 64 },
      ]),
    ).toBe("b");
  });
  test("undecided when the gap is within chance", () => {
    // (55 - 45) / sqrt(100) = 1.0
    expect(
      winnerOf([
        { variation: "a", conversions: 55 },
        { variation: "b", conversions: 45 },
      ]),
    ).toBeUndefined();
  });
  test("a single variation is never a winner", () => {
    expect(winnerOf([{ variation: "a", conversions: 500 }])).toBeUndefined();
  });
});
