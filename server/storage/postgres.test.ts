import { describe, expect, test } from "bun:test";
import { isConnectionError, storageFailure } from "./postgres.ts";

describe("storageFailure", () => {
  test("what a failed statement means: conflict, busy, unavailable, invalid data", () => {
    expect(storageFailure({ code: "23505", severity: "ERROR" })).toBe("conflict");
    expect(storageFailure({ code: "40P01", severity: "ERROR" })).toBe("busy");
    expect(storageFailure(Object.assign(new Error("refused"), { code: "ECONNREFUSED" }))).toBe("unavailable");
    expect(storageFailure({ code: "22003", severity: "ERROR" })).toBe("invalidData");
  });

  test("an error whose code is not a string is no storage failure, and reading it throws nothing", () => {
    for (const error of [{ code: 404 }, { code: 22003, severity: "ERROR" }, { code: null }, { code: ["08006"] }, new Error("plain")]) {
      expect(storageFailure(error)).toBeUndefined();
      expect(isConnectionError(error)).toBe(false);
    }
  });
});
