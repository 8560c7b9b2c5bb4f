import { describe, expect, test } from "bun:test";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { splitStatements } from "./clickhouse.ts";
import { clusterMigration, clusterStatements, SCHEMA_MIGRATIONS_DDL, SHARDING_KEYS } from "./clickhouse-ddl.ts";

const C = { cluster: "frameline", database: "analytics" };
const SESSION = "cityHash64(if(session_code = '', concat('#', event_id), session_code))";
const at = (statement: string) => clusterStatements(statement, C);

async function schemaFiles(): Promise<{ file: string; statements: string[] }[]> {
  const dir = join(import.meta.dir, "clickhouse");
  const files = (await readdir(dir)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
  return Promise.all(files.map(async (file) => ({ file, statements: splitStatements(await Bun.file(join(dir, file)).text()) })));
}

describe("without a cluster", () => {
  test("every statement of every migration file comes back as it is, byte for byte", async () => {
    const files = await schemaFiles();
    expect(files.length).toBeGreaterThanOrEqual(11);
    for (const { statements } of files) {
      for (const s of statements) expect(clusterStatements(s)).toEqual([s]);
      expect(clusterMigration(statements)).toEqual(statements);
    }
    expect(clusterStatements(SCHEMA_MIGRATIONS_DDL)).toEqual([SCHEMA_MIGRATIONS_DDL]);
  });
});

describe("CREATE TABLE on a cluster: a replicated local table, a Distributed table of the same name in front", () => {
  test("MergeTree: its clauses kept, the Keeper path per shard, sharded by the event's session", () => {
    expect(at("CREATE TABLE IF NOT EXISTS events (\n  event_id String,\n  session_code String\n) ENGINE = MergeTree\nORDER BY (event_id)")).toEqual([
      "CREATE TABLE IF NOT EXISTS events_local ON CLUSTER 'frameline' (\n  event_id String,\n  session_code String\n) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/events_local', '{replica}')\nORDER BY (event_id)",
      `CREATE TABLE IF NOT EXISTS events ON CLUSTER 'frameline' AS events_local ENGINE = Distributed('frameline', 'analytics', 'events_local', ${SESSION})`,
    ]);
  });

  test("SummingMergeTree: rows without a session spread at random", () => {
    expect(at("CREATE TABLE IF NOT EXISTS ingest_counters (minute DateTime('UTC'), count UInt64) ENGINE = SummingMergeTree ORDER BY minute")).toEqual([
      "CREATE TABLE IF NOT EXISTS ingest_counters_local ON CLUSTER 'frameline' (minute DateTime('UTC'), count UInt64) ENGINE = ReplicatedSummingMergeTree('/clickhouse/tables/{shard}/{database}/ingest_counters_local', '{replica}') ORDER BY minute",
      "CREATE TABLE IF NOT EXISTS ingest_counters ON CLUSTER 'frameline' AS ingest_counters_local ENGINE = Distributed('frameline', 'analytics', 'ingest_counters_local', rand())",
    ]);
  });

  test("AggregatingMergeTree: a comment in the column list stays as it is, names in it are not renamed", () => {
    const create =
      "CREATE TABLE IF NOT EXISTS analytics_session_slots (\n  session_hash UInt64,   -- as in analytics_session_slots, 'quoted'\n  played SimpleAggregateFunction(max, UInt8)\n) ENGINE = AggregatingMergeTree\nPARTITION BY toYYYYMM(slot)\nORDER BY (session_hash)";
    expect(at(create)).toEqual([
      "CREATE TABLE IF NOT EXISTS analytics_session_slots_local ON CLUSTER 'frameline' (\n  session_hash UInt64,   -- as in analytics_session_slots, 'quoted'\n  played SimpleAggregateFunction(max, UInt8)\n) ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/{database}/analytics_session_slots_local', '{replica}')\nPARTITION BY toYYYYMM(slot)\nORDER BY (session_hash)",
      "CREATE TABLE IF NOT EXISTS analytics_session_slots ON CLUSTER 'frameline' AS analytics_session_slots_local ENGINE = Distributed('frameline', 'analytics', 'analytics_session_slots_local', session_hash)",
    ]);
  });

  test("an engine's own arguments follow the Keeper path and replica (ReplacingMergeTree(version))", () => {
    expect(at("CREATE TABLE analytics_sales (sale_key String, session_hash UInt64, v UInt32) ENGINE = ReplacingMergeTree(v) ORDER BY sale_key")).toEqual([
      "CREATE TABLE analytics_sales_local ON CLUSTER 'frameline' (sale_key String, session_hash UInt64, v UInt32) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/analytics_sales_local', '{replica}', v) ORDER BY sale_key",
      "CREATE TABLE analytics_sales ON CLUSTER 'frameline' AS analytics_sales_local ENGINE = Distributed('frameline', 'analytics', 'analytics_sales_local', if(session_hash = 0, cityHash64(concat('#', sale_key)), session_hash))",
    ]);
  });

  test("a Null table copies its source's local table and gets a Distributed table too, so its views run on the rows' shard", () => {
    expect(at("CREATE TABLE IF NOT EXISTS player_events AS events ENGINE = Null")).toEqual([
      "CREATE TABLE IF NOT EXISTS player_events_local ON CLUSTER 'frameline' AS events_local ENGINE = Null",
      `CREATE TABLE IF NOT EXISTS player_events ON CLUSTER 'frameline' AS player_events_local ENGINE = Distributed('frameline', 'analytics', 'player_events_local', ${SESSION})`,
    ]);
  });

  test("schema_migrations is one replicated table on every node (no shard in its path, the shard in its replica name)", () => {
    expect(at(SCHEMA_MIGRATIONS_DDL)).toEqual([
      "CREATE TABLE IF NOT EXISTS schema_migrations ON CLUSTER 'frameline' (version String, applied_at DateTime64(3) DEFAULT now64(3)) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/noshard/{database}/schema_migrations', '{replica}-{shard}') ORDER BY version",
    ]);
  });

  test("a macro for the cluster, and a database name with a quote, are written as string literals", () => {
    expect(clusterStatements("CREATE TABLE IF NOT EXISTS player_events AS events ENGINE = Null", { cluster: "{cluster}", database: "it's" })).toEqual([
      "CREATE TABLE IF NOT EXISTS player_events_local ON CLUSTER '{cluster}' AS events_local ENGINE = Null",
      `CREATE TABLE IF NOT EXISTS player_events ON CLUSTER '{cluster}' AS player_events_local ENGINE = Distributed('{cluster}', 'it\\'s', 'player_events_local', ${SESSION})`,
    ]);
  });
});

describe("materialized views on a cluster read and write the local tables", () => {
  test("CREATE MATERIALIZED VIEW … TO: the target and every table it reads are the shard's own", () => {
    expect(at("CREATE MATERIALIZED VIEW IF NOT EXISTS player_events_to_events TO events AS\nSELECT * FROM player_events")).toEqual([
      "CREATE MATERIALIZED VIEW IF NOT EXISTS player_events_to_events ON CLUSTER 'frameline' TO events_local AS\nSELECT * FROM player_events_local",
    ]);
    expect(
      at(
        "CREATE MATERIALIZED VIEW IF NOT EXISTS v TO analytics_sessions AS\nSELECT session_hash, 'FROM events' AS note -- FROM events\nFROM analytics_session_slots\nWHERE video_id IN (SELECT video_id FROM numbers(3))",
      ),
    ).toEqual([
      "CREATE MATERIALIZED VIEW IF NOT EXISTS v ON CLUSTER 'frameline' TO analytics_sessions_local AS\nSELECT session_hash, 'FROM events' AS note -- FROM events\nFROM analytics_session_slots_local\nWHERE video_id IN (SELECT video_id FROM numbers(3))",
    ]);
  });

  test("ALTER TABLE <view> MODIFY QUERY: on every node, over the local tables", () => {
    expect(
      at("ALTER TABLE analytics_session_slots_split_tests MODIFY QUERY\nSELECT workspace_id, video_id\nFROM player_events\nGROUP BY workspace_id"),
    ).toEqual([
      "ALTER TABLE analytics_session_slots_split_tests ON CLUSTER 'frameline' MODIFY QUERY\nSELECT workspace_id, video_id\nFROM player_events_local\nGROUP BY workspace_id",
    ]);
  });

  test("DROP VIEW runs on every node", () => {
    expect(at("DROP VIEW IF EXISTS analytics_session_slots_mv")).toEqual(["DROP VIEW IF EXISTS analytics_session_slots_mv ON CLUSTER 'frameline'"]);
  });
});

describe("ALTER TABLE on a cluster", () => {
  test("ADD COLUMN: on the local tables, then on the Distributed table (a DEFAULT's commas and lambdas stay in one action)", () => {
    const alter =
      "ALTER TABLE analytics_session_slots\n  ADD COLUMN IF NOT EXISTS mask SimpleAggregateFunction(groupBitOr, UInt128) DEFAULT arrayFold((acc, r) -> bitOr(acc, r), ranges, toUInt128(0)),\n  ADD COLUMN IF NOT EXISTS low SimpleAggregateFunction(min, Float64) DEFAULT if(notEmpty(ranges), duration_s, inf)";
    expect(at(alter)).toEqual([
      "ALTER TABLE analytics_session_slots_local ON CLUSTER 'frameline'\n  ADD COLUMN IF NOT EXISTS mask SimpleAggregateFunction(groupBitOr, UInt128) DEFAULT arrayFold((acc, r) -> bitOr(acc, r), ranges, toUInt128(0)),\n  ADD COLUMN IF NOT EXISTS low SimpleAggregateFunction(min, Float64) DEFAULT if(notEmpty(ranges), duration_s, inf)",
      "ALTER TABLE analytics_session_slots ON CLUSTER 'frameline'\n  ADD COLUMN IF NOT EXISTS mask SimpleAggregateFunction(groupBitOr, UInt128) DEFAULT arrayFold((acc, r) -> bitOr(acc, r), ranges, toUInt128(0)),\n  ADD COLUMN IF NOT EXISTS low SimpleAggregateFunction(min, Float64) DEFAULT if(notEmpty(ranges), duration_s, inf)",
    ]);
  });

  test("ADD COLUMN on a Null table reaches its Distributed table too (inserts name the column there)", () => {
    expect(at("ALTER TABLE player_events ADD COLUMN IF NOT EXISTS session_start DateTime64(3, 'UTC') DEFAULT created_at")).toEqual([
      "ALTER TABLE player_events_local ON CLUSTER 'frameline' ADD COLUMN IF NOT EXISTS session_start DateTime64(3, 'UTC') DEFAULT created_at",
      "ALTER TABLE player_events ON CLUSTER 'frameline' ADD COLUMN IF NOT EXISTS session_start DateTime64(3, 'UTC') DEFAULT created_at",
    ]);
  });

  test("MATERIALIZE COLUMN rewrites stored parts: the local tables only", () => {
    expect(at("ALTER TABLE analytics_session_slots MATERIALIZE COLUMN mask100, MATERIALIZE COLUMN flags")).toEqual([
      "ALTER TABLE analytics_session_slots_local ON CLUSTER 'frameline' MATERIALIZE COLUMN mask100, MATERIALIZE COLUMN flags",
    ]);
  });

  test("MODIFY SETTING: the local tables only; one node's deduplication window is a replicated table's replicated_deduplication_window", () => {
    expect(at("ALTER TABLE events MODIFY SETTING merge_selector_base = 20")).toEqual([
      "ALTER TABLE events_local ON CLUSTER 'frameline' MODIFY SETTING merge_selector_base = 20",
    ]);
    expect(at("ALTER TABLE ingest_counters MODIFY SETTING non_replicated_deduplication_window = 10000")).toEqual([
      "ALTER TABLE ingest_counters_local ON CLUSTER 'frameline' MODIFY SETTING replicated_deduplication_window = 10000",
    ]);
  });

  test("DROP TABLE: the Distributed table, then the local tables with SYNC (their Keeper path freed at once)", () => {
    expect(at("DROP TABLE IF EXISTS analytics_sales")).toEqual([
      "DROP TABLE IF EXISTS analytics_sales ON CLUSTER 'frameline'",
      "DROP TABLE IF EXISTS analytics_sales_local ON CLUSTER 'frameline' SYNC",
    ]);
  });
});

describe("backfills on a cluster", () => {
  test("INSERT … SELECT goes through the Distributed tables; its subqueries run once over the cluster (GLOBAL)", () => {
    const backfill =
      "INSERT INTO analytics_sessions\nSELECT workspace_id, video_id, min(slot), session_hash\nFROM analytics_session_slots\nWHERE (workspace_id, video_id, session_hash) NOT IN (SELECT workspace_id, video_id, session_hash FROM analytics_sessions)\n  AND video_id IN ( SELECT video_id FROM analytics_sales)\n  AND event_type IN ('play', 'in (select')\nGROUP BY workspace_id, video_id, session_hash";
    expect(at(backfill)).toEqual([
      "INSERT INTO analytics_sessions\nSELECT workspace_id, video_id, min(slot), session_hash\nFROM analytics_session_slots\nWHERE (workspace_id, video_id, session_hash) GLOBAL NOT IN (SELECT workspace_id, video_id, session_hash FROM analytics_sessions)\n  AND video_id GLOBAL IN ( SELECT video_id FROM analytics_sales)\n  AND event_type IN ('play', 'in (select')\nGROUP BY workspace_id, video_id, session_hash",
    ]);
    expect(at("INSERT INTO events SELECT * FROM events WHERE x GLOBAL IN (SELECT 1)")).toEqual([
      "INSERT INTO events SELECT * FROM events WHERE x GLOBAL IN (SELECT 1)",
    ]);
  });
});

describe("what has no cluster form is refused with a sentence", () => {
  test.each([
    ["CREATE TABLE IF NOT EXISTS new_table (a UInt8) ENGINE = MergeTree ORDER BY a", /no sharding key for table "new_table"/],
    ["CREATE TABLE IF NOT EXISTS events (a UInt8) ENGINE = Memory", /no replicated form of ENGINE = Memory/],
    ["CREATE TABLE IF NOT EXISTS events (a UInt8) ENGINE = ReplicatedMergeTree ORDER BY a", /no replicated form/],
    ["CREATE TABLE IF NOT EXISTS other.events (a UInt8) ENGINE = MergeTree ORDER BY a", /bare table name/],
    ["CREATE MATERIALIZED VIEW v ENGINE = MergeTree ORDER BY a AS SELECT a FROM events", /name its table with TO/],
    ["CREATE MATERIALIZED VIEW v TO elsewhere AS SELECT a FROM events", /elsewhere, which is not a table of the schema/],
    ["ALTER TABLE events ADD COLUMN a UInt8, MODIFY SETTING merge_selector_base = 20", /separate statements/],
    ["INSERT INTO events SELECT * FROM events e JOIN analytics_sales s ON e.video_id = s.video_id", /GLOBAL JOIN/],
    ["INSERT INTO somewhere SELECT 1", /not a table of the schema/],
    ["OPTIMIZE TABLE events FINAL", /no cluster form/],
  ])("%s", (statement, error) => {
    expect(() => at(statement)).toThrow(error);
  });
});

describe("the whole schema on a cluster", () => {
  test("every table is made once as its local table and once as a Distributed table (again after a drop), every DDL statement ON CLUSTER, every view over local tables", async () => {
    const made: string[] = [];
    for (const { file, statements } of await schemaFiles())
      for (const statement of clusterMigration(statements, C)) {
        const where = `${file}: ${statement.slice(0, 70)}`;
        if (statement.startsWith("INSERT")) {
          // Backfills read and write the Distributed tables by their names.
          expect(statement, where).not.toContain("_local");
          expect(statement, where).not.toMatch(/(?<!GLOBAL |GLOBAL NOT )\bIN \(SELECT/);
          continue;
        }
        expect(statement, where).toContain(" ON CLUSTER 'frameline'");
        expect(statement, where).not.toMatch(/ENGINE = (MergeTree|SummingMergeTree|AggregatingMergeTree|ReplacingMergeTree)\b/);
        // A table dropped to be made again (0016: a new granule size) counts once.
        const dropped = /^DROP TABLE IF EXISTS (\w+) ON CLUSTER 'frameline'/.exec(statement)?.[1];
        if (dropped) made.splice(0, made.length, ...made.filter((m) => m !== dropped && !m.startsWith(`${dropped} -> `)));
        const create = /^CREATE TABLE IF NOT EXISTS (\w+) ON CLUSTER 'frameline' (?:\(|AS (\w+) ENGINE = (\w+))/.exec(statement);
        if (create) made.push(create[3] === "Distributed" ? `${create[1]} -> ${create[2]}` : create[1]!);
        if (/^(CREATE MATERIALIZED VIEW|ALTER TABLE \w+ ON CLUSTER 'frameline' MODIFY QUERY)/.test(statement)) {
          for (const [, table] of statement.matchAll(/\b(?:FROM|TO|JOIN) (\w+)/g)) expect(table, where).toEndWith("_local");
        }
      }
    const tables = Object.keys(SHARDING_KEYS).sort();
    expect(made.filter((m) => !m.includes("->")).sort()).toEqual(tables.map((t) => `${t}_local`));
    expect(made.filter((m) => m.includes("->")).sort()).toEqual(tables.map((t) => `${t} -> ${t}_local`));
  });

  test("every column added to a table is added to its Distributed table next, so reads and inserts by name see it", async () => {
    for (const { file, statements } of await schemaFiles()) {
      const out = clusterMigration(statements, C);
      out.forEach((statement, i) => {
        const local = /^ALTER TABLE (\w+)_local ON CLUSTER 'frameline'(\s+ADD COLUMN[\s\S]*)$/.exec(statement);
        if (local) expect(out[i + 1], `${file}: ${statement.slice(0, 70)}`).toBe(`ALTER TABLE ${local[1]} ON CLUSTER 'frameline'${local[2]}`);
      });
    }
  });
});
