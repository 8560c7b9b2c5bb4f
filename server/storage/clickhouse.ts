/**
 * ClickHouse for events: a server over HTTP when CLICKHOUSE_URL is set,
 * otherwise chDB in DATA_DIR plugged into the same @clickhouse/client, so one
 * SQL dialect and one code path serve both.
 */
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from "@clickhouse/client";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { CLUSTER_SETTINGS, type ClusterTarget, clusterMigration, clusterStatements, SCHEMA_MIGRATIONS_DDL } from "./clickhouse-ddl.ts";

export type Ch = ClickHouseClient;

const SCHEMA_DIR = join(import.meta.dir, "clickhouse");

/**
 * Deduplication only where asked for. The tables keep a deduplication window
 * (0012_dedup_window.sql) so that an ingest batch sent twice, with the token it
 * names itself by (ingest/batcher.ts), counts once; any other insert gets a token
 * of its own, so it is never dropped for looking like an earlier one.
 */
function ownToken(client: ClickHouseClient): ClickHouseClient {
  const insert = client.insert.bind(client);
  client.insert = (params) => insert({ ...params, clickhouse_settings: { insert_deduplication_token: crypto.randomUUID(), ...params.clickhouse_settings } });
  return client;
}

/** `cluster`: CLICKHOUSE_CLUSTER, whose statements carry CLUSTER_SETTINGS (clickhouse-ddl.ts). */
export async function connectClickHouse(opts: { url?: string; embeddedPath: string; cluster?: string }): Promise<Ch> {
  if (opts.url) {
    const settings = opts.cluster
      ? { date_time_input_format: "best_effort" as const, ...CLUSTER_SETTINGS }
      : { date_time_input_format: "best_effort" as const };
    // The client would log an ERROR for every failed request, each of which is thrown to its caller
    // anyway: the callers say what a failure means (an outage is spooled and logged once per batch).
    return ownToken(createClient({ url: opts.url, clickhouse_settings: settings, log: { level: ClickHouseLogLevel.OFF } }));
  }
  const { createChdbConnection } = await import("chdb/connection");
  // chDB allows one data directory per process: embedded mode is one process.
  const client = createClient({ connection: createChdbConnection({ path: opts.embeddedPath }) } as Parameters<typeof createClient>[0]);
  // chDB keeps a statement's settings on its one session (they are sent as SET): a
  // statement that may insert states its own token, so none inherits another's.
  const command = client.command.bind(client);
  const exec = client.exec.bind(client);
  client.command = (params) => command({ ...params, clickhouse_settings: { insert_deduplication_token: crypto.randomUUID(), ...params.clickhouse_settings } });
  client.exec = (params) => exec({ ...params, clickhouse_settings: { insert_deduplication_token: crypto.randomUUID(), ...params.clickhouse_settings } });
  return ownToken(client);
}

/**
 * Applies `NNNN_name.sql` files not yet recorded in `schema_migrations`, each
 * recorded once all its statements ran. Statements end with `;` at the end of a
 * line (`splitStatements`). The caller holds the migration lock (runtime.ts runs
 * this under PostgreSQL's advisory lock), so processes apply a file one at a time;
 * and every statement is safe to run again (`IF NOT EXISTS`, restated views,
 * mutations that compute the same value, backfills that skip rows already copied),
 * so a file that failed half-way is simply run again from the start.
 *
 * With `cluster` (CLICKHOUSE_CLUSTER) each statement runs in its cluster form
 * (clickhouse-ddl.ts); without, exactly as the file has it.
 */
export async function migrateClickHouse(ch: Ch, options: { cluster?: string } = {}): Promise<string[]> {
  const target = options.cluster ? await clusterTarget(ch, options.cluster) : undefined;
  if (!target) await ch.command({ query: SCHEMA_MIGRATIONS_DDL });
  // A version another node recorded may reach this replica a moment later: the file then
  // runs again, which every statement allows (see above).
  const rows = await (await ch.query({ query: "SELECT version FROM schema_migrations", format: "JSONEachRow" })).json<{ version: string }>();
  const done = new Set(rows.map((r) => r.version));
  const applied: string[] = [];
  const files = (await readdir(SCHEMA_DIR)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
  for (const file of files) {
    const version = file.replace(/\.sql$/, "");
    if (done.has(version)) continue;
    const text = await Bun.file(join(SCHEMA_DIR, file)).text();
    for (const statement of clusterMigration(splitStatements(text), target)) await ch.command({ query: statement });
    await ch.insert({ table: "schema_migrations", values: [{ version }], format: "JSONEachRow" });
    applied.push(version);
  }
  return applied;
}

/**
 * The cluster's database (the connection's, which Distributed tables name), with
 * `schema_migrations` made on every node. Only when it is missing: an ON CLUSTER
 * statement waits for every node, and a start should not wait for a node that is down.
 * A schema made for one node is refused: its tables are not replicated, and applying
 * the cluster's later migrations over it would mix the two layouts.
 */
async function clusterTarget(ch: Ch, cluster: string): Promise<ClusterTarget> {
  const [row] = await (
    await ch.query({
      query:
        "SELECT currentDatabase() AS db, (SELECT any(engine) FROM system.tables WHERE database = currentDatabase() AND name = 'schema_migrations') AS engine",
      format: "JSONEachRow",
    })
  ).json<{ db: string; engine: string }>();
  const target = { cluster, database: row!.db };
  if (!row!.engine) for (const statement of clusterStatements(SCHEMA_MIGRATIONS_DDL, target)) await ch.command({ query: statement });
  else if (!row!.engine.startsWith("Replicated"))
    throw new Error(
      `CLICKHOUSE_CLUSTER is set, but database ${row!.db} holds a one-node schema (schema_migrations is ${row!.engine}): use a new database for the cluster (README "ClickHouse on a cluster")`,
    );
  return target;
}

/**
 * A migration file's statements: each ends with `;` at the end of a line, a trailing
 * `-- comment` allowed. A server takes one statement per request (chDB alone would
 * run the rest of a request too, hiding a missed split).
 */
export function splitStatements(text: string): string[] {
  return text
    .split(/;[ \t\r]*(?:--[^\n]*)?(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
    .filter(Boolean);
}
