/**
 * The cluster form of the ClickHouse schema (server/storage/clickhouse-ddl.ts, README
 * "Production") read by ClickHouse's own parser. No Keeper runs here, so the statements
 * are parsed (`formatQuery`), not run: a two-shard cluster is the operator's to try.
 */
import { describe, expect, test } from "bun:test";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { splitStatements } from "../../server/storage/clickhouse.ts";
import { clusterMigration, clusterStatements, SCHEMA_MIGRATIONS_DDL } from "../../server/storage/clickhouse-ddl.ts";
import { applyMaskSql, maskedPartitionsSql, pruneStatements } from "../../server/api/analytics/rollups.ts";
import { getEngines } from "../helpers/engines.ts";

const SCHEMA_DIR = join(import.meta.dir, "..", "..", "server", "storage", "clickhouse");
const TARGET = { cluster: "{cluster}", database: "frameline" };

async function parsed(statement: string): Promise<string> {
  const { ch } = await getEngines();
  const result = await ch.query({ query: "SELECT formatQuerySingleLine({q:String}) AS q", query_params: { q: statement }, format: "JSONEachRow" });
  const [row] = await result.json<{ q: string }>();
  return row!.q;
}

describe("the schema's cluster form", () => {
  test("ClickHouse's parser reads every statement, ON CLUSTER and engines where they were put", async () => {
    const statements = [...clusterStatements(SCHEMA_MIGRATIONS_DDL, TARGET)];
    for (const file of (await readdir(SCHEMA_DIR)).filter((f) => f.endsWith(".sql")).sort())
      statements.push(...clusterMigration(splitStatements(await Bun.file(join(SCHEMA_DIR, file)).text()), TARGET));
    expect(statements.length).toBeGreaterThan(50);
    for (const statement of statements) {
      const normal = await parsed(statement);
      // A backfill guarded by what is already there reads every shard; one of maxima and minima needs no guard.
      if (statement.startsWith("INSERT")) {
        if (/NOT IN/.test(statement)) expect(normal).toContain("GLOBAL NOT IN (SELECT");
      } else expect(normal).toContain(" ON CLUSTER `{cluster}`");
      if (/ENGINE = Replicated/.test(statement))
        expect(normal).toMatch(/ENGINE = Replicated\w*MergeTree\('\/clickhouse\/tables\/(\{shard\}|noshard)\/\{database\}\/\w+', '\{replica\}/);
      if (/ENGINE = Distributed/.test(statement)) expect(normal).toMatch(/ENGINE = Distributed\('\{cluster\}', 'frameline', '\w+_local', /);
    }
  });

  test("the seal's deletes of superseded rows run on each shard's local table", async () => {
    for (const statement of pruneStatements("{cluster}")) {
      const normal = await parsed(statement.replaceAll("{generation:UInt64}", "1").replaceAll("{run:String}", "'2026-01-01 00:00:00'"));
      expect(normal).toMatch(
        /^DELETE FROM (analytics_(group_)?rollups)_local ON CLUSTER `\{cluster\}` WHERE .* IN \(SELECT .* FROM \1_local WHERE generation = 1\)\)$/,
      );
    }
  });

  test("the seal's rewrite of masked rows counts every host's parts and rewrites the partition on each shard's local table", async () => {
    for (const table of ["analytics_rollups", "analytics_group_rollups"] as const) {
      const count = await parsed(maskedPartitionsSql(table, "{cluster}"));
      expect(count).toContain(`FROM clusterAllReplicas('{cluster}', system.parts) WHERE (database = currentDatabase()) AND (\`table\` = '${table}_local')`);
      expect(count).toContain(`FROM clusterAllReplicas('{cluster}', ${table}_local)`);
      expect(await parsed(applyMaskSql(table, "202611", "{cluster}"))).toBe(
        `ALTER TABLE ${table}_local ON CLUSTER \`{cluster}\` (APPLY DELETED MASK IN PARTITION ID '202611') SETTINGS mutations_sync = 2`,
      );
    }
  });

  test("the check can fail: a statement the parser refuses is an error", async () => {
    await expect(parsed("CREATE TABLE t ON CLUSTER ENGINE = MergeTree")).rejects.toThrow();
  });
});
