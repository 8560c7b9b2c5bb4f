import { describe, expect, test } from "bun:test";
import { isCssSelector, isDateTime, isWebUrl } from "./formats.ts";

describe("isCssSelector", () => {
  test("accepts the selectors sellers write", () => {
    for (const s of [
      "#buy",
      ".offer",
      "[data-frameline-pitch]",
      "div > p",
      ".a.b>c~d+e",
      "a:hover",
      "li:nth-child(2n+1)",
      ":not(.a, .b)",
      "div:has(> img)",
      "#a, .b",
      "a[href^='https']",
      "a[href=x i]",
      "p::before",
      "a:is(.x, .y)",
      "*",
      ".price\\:old",
    ])
      expect([s, isCssSelector(s)]).toEqual([s, true]);
  });

  test("refuses what querySelectorAll throws on", () => {
    for (const s of ["", "  ", "div >", "[", "..a", "#", ".1a", "#1a", "a:nth-child(", ":not(", "a b)", "a))", ":foo", "a,", ",a", "a]", "div{}"])
      expect([s, isCssSelector(s)]).toEqual([s, false]);
  });

  test("parentheses inside strings do not count", () => {
    expect(isCssSelector("a[title=')']")).toBe(true);
    expect(isCssSelector('a[title="("]')).toBe(true);
  });
});

describe("isWebUrl", () => {
  test("http and https only", () => {
    expect(isWebUrl("https://example.com/buy?x=1")).toBe(true);
    expect(isWebUrl("http://127.0.0.1:8080/a")).toBe(true);
    for (const u of ["javascript:alert(1)", "ftp://x.y", "//example.com", "https://", "https://exa mple.com", "example.com"])
      expect([u, isWebUrl(u)]).toEqual([u, false]);
  });
});

describe("isDateTime", () => {
  test("ISO 8601 with a time zone", () => {
    expect(isDateTime("2026-12-31T23:59:00Z")).toBe(true);
    expect(isDateTime("2026-12-31T23:59+02:00")).toBe(true);
    expect(isDateTime("2026-12-31T23:59:00.123Z")).toBe(true);
    for (const d of ["2026-12-31", "2026-12-31T23:59:00", "tomorrow", "2026-13-45T99:99:00Z"]) expect([d, isDateTime(d)]).toEqual([d, false]);
  });
});
