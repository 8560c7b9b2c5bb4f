import { expect, test } from "bun:test";
import { viewers } from "./seller-format.ts";

test("distinct viewers are marked ≈ when the API says they are estimated, or past the exact range", () => {
  expect(viewers(12, true)).toBe("12");
  expect(viewers(52_000, false)).toBe(`≈ ${(52_000).toLocaleString()}`);
  expect(viewers(3_999)).toBe((3_999).toLocaleString());
  expect(viewers(4_000)).toBe(`≈ ${(4_000).toLocaleString()}`);
});
