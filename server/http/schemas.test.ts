import { describe, expect, test } from "bun:test";
import { isSafeText, jsonProblem, parseDateOnly, parseDateTime, propertiesProblem } from "./schemas.ts";

describe("isSafeText", () => {
  test("refuses NUL and unpaired surrogates, takes every other string", () => {
    for (const bad of ["\u0000", "a\u0000", "\ud800", "x\udc00", "\udbff\udbff"]) expect(isSafeText(bad)).toBe(false);
    for (const good of ["", "plain", "😀", "\ud83d\ude00", "\u202eevil\u202c", "\uffff\ufffe\ufdd0", "漢字", "مرحبا"]) expect(isSafeText(good)).toBe(true);
  });
});

describe("dates", () => {
  test("calendar dates from 1970-01-01 to 2100-12-31, real days only", () => {
    expect(parseDateOnly("1970-01-01")).toBe(0);
    expect(parseDateOnly("2100-12-31")).toBe(Date.UTC(2100, 11, 31));
    for (const bad of ["1969-12-31", "2101-01-01", "9999-12-31", "0000-01-01", "2024-02-30", "2024-1-1", "2024-01-01T00:00:00Z", ""])
      expect(parseDateOnly(bad)).toBeUndefined();
  });

  test("date-times within the same range, with Z or an offset", () => {
    expect(parseDateTime("2026-11-23T10:00:00Z")).toBe(Date.UTC(2026, 10, 23, 10));
    expect(parseDateTime("2026-11-23T10:00:00.123+02:00")).toBe(Date.UTC(2026, 10, 23, 8, 0, 0, 123));
    for (const bad of ["9999-12-31T23:59:59Z", "1969-12-31T23:59:59Z", "2026-11-23", "2026-11-23T25:00:00Z", "2026-02-30T00:00:00Z", "now"]) {
      expect(parseDateTime(bad)).toBeUndefined();
    }
  });
});

describe("free-form JSON", () => {
  test("depth is counted from the value (level 1) without recursion, so 100,000 levels are only refused", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonProblem(deep, 32)).toBe("nests deeper than 32 levels");
    expect(jsonProblem({ a: { b: { c: 1 } } }, 3)).toBeUndefined();
    expect(jsonProblem({ a: { b: { c: {} } } }, 3)).toBe("nests deeper than 3 levels");
  });

  test("keys and strings at any depth must be safe text", () => {
    expect(jsonProblem({ a: [{ b: "x\u0000" }] }, 32)).toContain("string");
    expect(jsonProblem({ a: { "\ud800": 1 } }, 32)).toContain("key");
    expect(jsonProblem({ a: ["😀", "\uffff"] }, 32)).toBeUndefined();
  });
});

describe("properties (docs/api.md limits)", () => {
  test("an object of at most 20 keys of 1 to 40 characters; values strings of at most 100 characters, numbers or booleans", () => {
    expect(propertiesProblem({ s: "x".repeat(100), n: -1.5, b: true })).toBeUndefined();
    for (const bad of [
      true,
      0,
      "x",
      [],
      null,
      { a: null },
      { a: {} },
      { a: [1] },
      { a: "x".repeat(101) },
      { ["k".repeat(41)]: 1 },
      { "": 1 },
      { a: "\u0000" },
    ]) {
      expect(propertiesProblem(bad)).toBeString();
    }
    expect(propertiesProblem(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i])))).toBe("must have at most 20 keys");
  });
});
