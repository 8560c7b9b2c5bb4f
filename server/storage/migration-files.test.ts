import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";

// Versions are file names, so two files with one number would both apply, in an order that hangs on their names.
describe("migration files", () => {
  for (const engine of ["postgres", "clickhouse"]) {
    test(`${engine}: one file a number`, () => {
      const numbers = readdirSync(join(import.meta.dir, engine))
        .filter((f) => f.endsWith(".sql"))
        .map((f) => f.slice(0, 4));
      expect(numbers.every((n) => /^\d{4}$/.test(n))).toBe(true);
      expect(numbers.filter((n, i) => numbers.indexOf(n) !== i)).toEqual([]);
    });
  }
});
