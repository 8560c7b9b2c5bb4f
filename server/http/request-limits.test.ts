import { expect, test } from "bun:test";
import { jsonDepth } from "./request-limits.ts";

test("jsonDepth counts nesting of arrays and objects, skipping brackets inside strings and escapes", () => {
  expect(jsonDepth('{"a":1}')).toBe(1);
  expect(jsonDepth('{"a":[{"b":[]}]}')).toBe(4);
  expect(jsonDepth('{"a":"[[[[{{{{"}')).toBe(1);
  expect(jsonDepth('{"a":"\\"[[[["}')).toBe(1);
  expect(jsonDepth("42")).toBe(0);
  expect(jsonDepth(`${"[".repeat(10_000)}${"]".repeat(10_000)}`)).toBe(10_000);
  // It stops counting once past the bound.
  expect(jsonDepth(`${"[".repeat(10_000)}${"]".repeat(10_000)}`, 32)).toBe(33);
});
