/**
 * One set of real engines per test process (chDB allows one data directory per
 * process): a fresh PostgreSQL database on the server named by DATABASE_URL,
 * or embedded PGlite when it is unset; chDB, or a fresh database on the
 * ClickHouse server named by CLICKHOUSE_URL; fs blobs.
 *
 * bun test offers no hook at the end of a whole run (a preload's afterAll runs
 * once per file), so the engines live until the process ends; databases of runs
 * older than a few hours are dropped by the next run, and .ci/run drops its own.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { createClient } from "@clickhouse/client";
import { connectPostgres, migrate, type Sql } from "../../server/storage/postgres.ts";
import { startEmbeddedPostgres } from "../../server/storage/pglite.ts";
import { connectClickHouse, migrateClickHouse, type Ch } from "../../server/storage/clickhouse.ts";

export interface Engines {
  sql: Sql;
  ch: Ch;
  /** A connection string for this run's database (for child processes and second pools). */
  databaseUrl: string;
  /** True when DATABASE_URL pointed at a real server. */
  server: boolean;
  tmp: string;
  /** Creates another empty database on the same server (or another PGlite) and returns its URL and a stop function. */
  freshDatabase(): Promise<{ url: string; drop(): Promise<void> }>;
  /** True when CLICKHOUSE_URL pointed at a ClickHouse server. */
  clickhouseServer: boolean;
  /**
   * Another empty ClickHouse: a path for chDB in another process (chDB allows one data
   * directory per process), or the URL of a database of its own on CLICKHOUSE_URL's server.
   */
  freshClickHouse(): Promise<{ target: string; drop(): Promise<void> }>;
}

let engines: Promise<Engines> | undefined;
const cleanups: (() => Promise<void>)[] = [];

/** Destructive helpers refuse anything that is not a loopback test database. */
export function assertTestDatabase(url: string): void {
  const parsed = new URL(url);
  const name = parsed.pathname.replace(/^\//, "");
  if (!["127.0.0.1", "localhost", "::1", "[::1]"].includes(parsed.hostname)) throw new Error(`refusing non-loopback database host ${parsed.hostname}`);
  if (!name.includes("test")) throw new Error(`refusing database "${name}": its name lacks "test"`);
}

const STALE_AFTER_MS = 3 * 60 * 60_000;

/** Names carry their creation time, so a run that died without cleaning up is swept by a later one. */
async function dropStaleDatabases(admin: postgres.Sql): Promise<void> {
  const rows = await admin`SELECT datname FROM pg_database WHERE datname LIKE 'frameline_test_%'`;
  for (const { datname } of rows) {
    const created = parseInt(String(datname).split("_")[2] ?? "", 36);
    if (Number.isFinite(created) && Date.now() - created > STALE_AFTER_MS)
      await admin.unsafe(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).catch(() => {});
  }
}

/** An empty database of its own on the server at `adminUrl` (for tests whose processes share one without the rest of these engines). */
export async function serverDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `frameline_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await dropStaleDatabases(admin);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();

  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const target = url.toString();
  assertTestDatabase(target);
  return {
    url: target,
    async drop() {
      const again = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await again.end();
    },
  };
}

/** As dropStaleDatabases, for the ClickHouse server's databases of earlier runs. */
async function dropStaleClickHouseDatabases(admin: Ch): Promise<void> {
  const rows = await (await admin.query({ query: "SELECT name FROM system.databases WHERE startsWith(name, 'frameline_test_')", format: "JSONEachRow" })).json<{
    name: string;
  }>();
  for (const { name } of rows) {
    const created = parseInt(name.split("_")[2] ?? "", 36);
    if (Number.isFinite(created) && Date.now() - created > STALE_AFTER_MS) await admin.command({ query: `DROP DATABASE IF EXISTS ${name}` }).catch(() => {});
  }
}

/** A database of its own on the ClickHouse server at `serverUrl`: the URL that names it (the client reads the database from the path). */
async function serverClickHouseDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `frameline_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const target = url.toString().replace(/\/$/, "");
  assertTestDatabase(target);
  const admin = createClient({ url: serverUrl });
  await dropStaleClickHouseDatabases(admin);
  await admin.command({ query: `CREATE DATABASE ${name}` });
  await admin.close();
  return {
    url: target,
    async drop() {
      const again = createClient({ url: serverUrl });
      await again.command({ query: `DROP DATABASE IF EXISTS ${name}` }).catch(() => {});
      await again.close();
    },
  };
}

async function start(): Promise<Engines> {
  const tmp = await mkdtemp(join(tmpdir(), "frameline-test-"));
  cleanups.push(() => rm(tmp, { recursive: true, force: true }));
  const adminUrl = process.env.DATABASE_URL;

  const freshDatabase = async () => {
    if (adminUrl) return serverDatabase(adminUrl);
    const pg = await startEmbeddedPostgres(await mkdtemp(join(tmp, "pg-")));
    return { url: pg.url, drop: pg.stop };
  };

  const db = await freshDatabase();
  cleanups.push(db.drop);
  const sql = connectPostgres(db.url, { max: 10 });
  cleanups.unshift(() => sql.end({ timeout: 5 }));
  await migrate(sql);

  const chServerUrl = process.env.CLICKHOUSE_URL;
  const freshClickHouse = async () => {
    if (chServerUrl) {
      const chDb = await serverClickHouseDatabase(chServerUrl);
      return { target: chDb.url, drop: chDb.drop };
    }
    const dir = await mkdtemp(join(tmp, "ch-"));
    return { target: join(dir, "clickhouse"), drop: () => rm(dir, { recursive: true, force: true }) };
  };

  let chUrl: string | undefined;
  if (chServerUrl) {
    const chDb = await serverClickHouseDatabase(chServerUrl);
    cleanups.push(chDb.drop);
    chUrl = chDb.url;
  }
  const ch = await connectClickHouse({ url: chUrl, embeddedPath: join(tmp, "clickhouse") });
  cleanups.unshift(() => ch.close());
  await migrateClickHouse(ch);

  return { sql, ch, databaseUrl: db.url, server: Boolean(adminUrl), tmp, freshDatabase, clickhouseServer: Boolean(chServerUrl), freshClickHouse };
}

export function getEngines(): Promise<Engines> {
  engines ??= start();
  return engines;
}

export async function stopEngines(): Promise<void> {
  if (!engines) return;
  engines = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => {});
}
