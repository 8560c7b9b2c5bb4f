import { describe, expect, test } from "bun:test";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { splitStatements } from "./clickhouse.ts";
import { scanSql } from "../../test/helpers/clickhouse-sql.ts";

describe("splitStatements", () => {
  test("a `;` ending a line ends a statement, with or without a comment after it; comment lines go", () => {
    expect(splitStatements("-- the first\nSELECT 1;\nSELECT 2;  -- two\r\nSELECT ';'\n;\nSELECT 4")).toEqual([
      "SELECT 1",
      "SELECT 2",
      "SELECT ';'",
      "SELECT 4",
    ]);
  });

  test("every migration splits into single statements: a ClickHouse server refuses two in one request", async () => {
    const dir = join(import.meta.dir, "clickhouse");
    const files = (await readdir(dir)).filter((f) => f.endsWith(".sql"));
    expect(files.length).toBeGreaterThan(0);
    const joined: string[] = [];
    for (const file of files)
      for (const statement of splitStatements(await Bun.file(join(dir, file)).text())) {
        const at = scanSql(statement).secondAt;
        if (at >= 0) joined.push(`${file}: ${statement.slice(at, at + 80)}`);
      }
    expect(joined).toEqual([]);
  });
});
