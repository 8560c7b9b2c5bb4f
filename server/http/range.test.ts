import { describe, expect, test } from "bun:test";
import { parseRange } from "./range.ts";

describe("parseRange", () => {
  test("bytes=a-b and bytes=a- are served from a; the end is inclusive", () => {
    expect(parseRange("bytes=0-99", 1000)).toEqual({ start: 0, end: 99 });
    expect(parseRange("bytes=500-", 1000)).toEqual({ start: 500, end: undefined });
    expect(parseRange(" bytes=10-10 ", 1000)).toEqual({ start: 10, end: 10 });
  });

  test("bytes=-n is the last n bytes, the whole file when n is larger", () => {
    expect(parseRange("bytes=-100", 1000)).toEqual({ start: 900 });
    expect(parseRange("bytes=-5000", 1000)).toEqual({ start: 0 });
  });

  test("a start past the end, or an empty suffix, is unsatisfiable (416)", () => {
    expect(parseRange("bytes=1000-", 1000)).toBe("unsatisfiable");
    expect(parseRange("bytes=2000-3000", 1000)).toBe("unsatisfiable");
    expect(parseRange("bytes=-0", 1000)).toBe("unsatisfiable");
  });

  test("no header, another unit, several ranges, a reversed or malformed range: undefined, served whole (RFC 9110 allows it)", () => {
    for (const header of [null, "", "items=0-1", "bytes=0-1,5-6", "bytes=9-3", "bytes=-", "bytes=a-b", "bytes 0-1"]) {
      expect([header, parseRange(header, 1000)]).toEqual([header, undefined]);
    }
  });

  test("an end past the file is left for the store to clamp", () => {
    expect(parseRange("bytes=900-5000", 1000)).toEqual({ start: 900, end: 5000 });
  });
});
