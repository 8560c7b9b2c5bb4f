import { describe, expect, test } from "bun:test";
import { errorCode } from "./error-code.ts";

describe("errorCode", () => {
  test("a string code is read", () => {
    expect(errorCode(Object.assign(new Error("x"), { code: "ECONNREFUSED" }))).toBe("ECONNREFUSED");
    expect(errorCode({ code: "23505" })).toBe("23505");
  });

  test("anything else is no code: a number, an object, a missing field, a thrown string or null", () => {
    for (const thrown of [{ code: 500 }, { code: { nested: true } }, new Error("plain"), "text", null, undefined, 42])
      expect(errorCode(thrown)).toBeUndefined();
  });
});
