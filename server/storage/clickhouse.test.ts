import { describe, expect, test } from "bun:test";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { type Ch, migrateClickHouse, splitStatements } from "./clickhouse.ts";
import { clusterMigration, clusterStatements, SCHEMA_MIGRATIONS_DDL } from "./clickhouse-ddl.ts";
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

/** A client that records what migrateClickHouse sends; `engine` is schema_migrations' engine as system.tables tells it ('' when absent). */
function recordingClient(engine = "") {
  const commands: string[] = [];
  const versions: string[] = [];
  const ch = {
    command: async (p: { query: string }) => void commands.push(p.query),
    query: async (p: { query: string }) => ({
      json: async () => (p.query.includes("currentDatabase()") ? [{ db: "analytics", engine }] : []),
    }),
    insert: async (p: { table: string; values: { version: string }[] }) => void versions.push(...p.values.map((v) => v.version)),
  };
  return { ch: ch as unknown as Ch, commands, versions };
}

async function migrationFiles(): Promise<{ version: string; statements: string[] }[]> {
  const dir = join(import.meta.dir, "clickhouse");
  const files = (await readdir(dir)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
  return Promise.all(files.map(async (f) => ({ version: f.replace(/\.sql$/, ""), statements: splitStatements(await Bun.file(join(dir, f)).text()) })));
}

describe("migrateClickHouse", () => {
  test("without a cluster it sends what it always sent: schema_migrations, then every file's statements as written", async () => {
    const { ch, commands, versions } = recordingClient();
    const files = await migrationFiles();
    await migrateClickHouse(ch);
    expect(commands).toEqual([
      "CREATE TABLE IF NOT EXISTS schema_migrations (version String, applied_at DateTime64(3) DEFAULT now64(3)) ENGINE = ReplacingMergeTree ORDER BY version",
      ...files.flatMap((f) => f.statements),
    ]);
    expect(versions).toEqual(files.map((f) => f.version));
  });

  test("with a cluster: schema_migrations on every node, then each file in its cluster form, naming the connection's database", async () => {
    const { ch, commands, versions } = recordingClient();
    const files = await migrationFiles();
    const target = { cluster: "frameline", database: "analytics" };
    await migrateClickHouse(ch, { cluster: "frameline" });
    expect(commands).toEqual([...clusterStatements(SCHEMA_MIGRATIONS_DDL, target), ...files.flatMap((f) => clusterMigration(f.statements, target))]);
    expect(commands.some((c) => c.includes("Distributed('frameline', 'analytics', 'events_local'"))).toBe(true);
    expect(versions).toEqual(files.map((f) => f.version));
  });

  test("with a cluster whose schema_migrations exists, no ON CLUSTER statement is sent at start (it would wait for every node)", async () => {
    const { ch, commands } = recordingClient("ReplicatedReplacingMergeTree");
    await migrateClickHouse(ch, { cluster: "frameline" });
    expect(commands[0]).toStartWith("CREATE TABLE IF NOT EXISTS events_local ON CLUSTER");
  });

  test("with a cluster over a schema made for one node, it refuses with a sentence", async () => {
    const { ch, commands } = recordingClient("ReplacingMergeTree");
    await expect(migrateClickHouse(ch, { cluster: "frameline" })).rejects.toThrow(/CLICKHOUSE_CLUSTER is set, but database analytics holds a one-node schema/);
    expect(commands).toEqual([]);
  });
});
