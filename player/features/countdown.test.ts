import { describe, expect, test } from "bun:test";
import { remaining } from "./countdown.ts";

describe("remaining", () => {
  test("hours, minutes and seconds, with days when there are any; never negative", () => {
    expect(remaining(65_000)).toBe("00:01:05");
    expect(remaining(3 * 3600_000 + 4 * 60_000 + 5_999)).toBe("03:04:05");
    expect(remaining(2 * 86_400_000 + 3_600_000)).toBe("2d 01:00:00");
    expect(remaining(-5)).toBe("00:00:00");
  });
});
