/**
 * postgres.js connection and versioned migrations. The same code runs against a
 * PostgreSQL server and against embedded PGlite (served over the wire protocol).
 */
import postgres from "postgres";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { errorCode } from "../lib/error-code.ts";

/** The custom types of connectPostgres: bigint ids and counts read as numbers. */
type Types = { bigint: number };
export type Sql = postgres.Sql<Types>;
export type TxSql = postgres.TransactionSql<Types>;
/** One connection taken from the pool (the migrator's, which holds the lock). */
type ReservedSql = postgres.ReservedSql<Types>;
/** What a repo function runs on: the pool, or the transaction its caller holds. */
export type Db = Sql | TxSql;

/** PostgreSQL's jsonb type. */
const JSONB_OID = 3802;

/**
 * A value for a jsonb column, written with JSON.stringify. postgres.js's own
 * `sql.json` takes only values its JSONValue type can name, which a
 * `Record<string, unknown>` or an `unknown` body cannot; `sql.json(x)` is this
 * same parameter (`new Parameter(x, 3802)`).
 */
export function json(sql: Db, value: unknown): postgres.Parameter<unknown> {
  return sql.typed(value, JSONB_OID);
}

const MIGRATIONS_DIR = join(import.meta.dir, "postgres");
/** Advisory lock key shared by every process that migrates this database. */
const MIGRATION_LOCK = 7_240_318_001;

export function connectPostgres(url: string, opts: { max?: number; connectTimeoutSeconds?: number } = {}): Sql {
  return postgres(url, {
    max: opts.max ?? 10,
    connect_timeout: opts.connectTimeoutSeconds ?? 10,
    idle_timeout: 30,
    onnotice: () => {},
    // bigint ids and counts fit comfortably in a JS number.
    types: { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
    transform: { undefined: null },
  });
}

/**
 * A session of its own for LISTEN: one connection, never recycled, whose
 * notifications go to `notify`; `closed` hears that the session (and with it
 * every LISTEN) is gone. The next query opens a new one.
 */
export function connectListener(url: string, on: { notify(channel: string, payload: string): void; closed(): void }): Sql {
  return postgres(url, {
    max: 1,
    connect_timeout: 10,
    idle_timeout: 0,
    max_lifetime: null,
    fetch_types: false,
    onnotice: () => {},
    onclose: () => on.closed(),
    // Not in postgres.js's types, but its connections pass every NotificationResponse to it.
    ...({ onnotify: (channel: string, payload: string) => on.notify(channel, payload) } as object),
  }) as unknown as Sql;
}

/**
 * Embedded PGlite serves every connection from one session, where advisory locks
 * are re-entrant and exclude nothing; migrators of one process also queue here.
 */
let migrating: Promise<unknown> = Promise.resolve();

/**
 * Applies every `NNNN_name.sql` not yet recorded, in order, each in its own
 * transaction. A session advisory lock makes concurrent starts wait for the
 * first migrator instead of racing it. `afterMigrate` runs under the same lock
 * (first-start bootstrap must not race either).
 */
export function migrate(sql: Sql, afterMigrate?: (sql: ReservedSql) => Promise<void>): Promise<string[]> {
  const run = migrating.then(() => migrateLocked(sql, afterMigrate));
  migrating = run.catch(() => {});
  return run;
}

async function migrateLocked(sql: Sql, afterMigrate?: (sql: ReservedSql) => Promise<void>): Promise<string[]> {
  const applied: string[] = [];
  const reserved = await sql.reserve();
  try {
    await reserved`SELECT pg_advisory_lock(${MIGRATION_LOCK})`;
    await reserved`CREATE TABLE IF NOT EXISTS schema_migrations (version varchar(255) PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`;
    const done = new Set((await reserved`SELECT version FROM schema_migrations`).map((r) => r.version as string));
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
    for (const file of files) {
      const version = file.replace(/\.sql$/, "");
      if (done.has(version)) continue;
      const text = await Bun.file(join(MIGRATIONS_DIR, file)).text();
      await reserved.unsafe("BEGIN");
      try {
        await reserved.unsafe(text);
        await reserved`INSERT INTO schema_migrations (version) VALUES (${version})`;
        await reserved.unsafe("COMMIT");
      } catch (error) {
        await reserved.unsafe("ROLLBACK");
        throw new Error(`migration ${file} failed: ${(error as Error).message}`);
      }
      applied.push(version);
    }
    if (afterMigrate) await afterMigrate(reserved);
  } finally {
    await reserved`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
    reserved.release();
  }
  return applied;
}

/** SQLSTATE codes the services care about, translated at the storage boundary. */
export const PgCodes = {
  uniqueViolation: "23505",
  foreignKeyViolation: "23503",
  serializationFailure: "40001",
  deadlockDetected: "40P01",
  /** Class 22, data exception: a value out of range or malformed for its column. */
  dataExceptionClass: "22",
} as const;

export function isPgError(error: unknown, code: string): boolean {
  return errorCode(error) === code;
}

/**
 * What a failed statement means for the caller, decided once here (the error
 * table in server/errors.ts gives each its answer): another request wrote the
 * same row first, the transaction lost a race and may simply run again, the
 * database could not be reached, or a value did not fit its column (edges
 * check every value, so this is only a backstop).
 */
export type StorageFailure = "conflict" | "busy" | "unavailable" | "invalidData";

export function storageFailure(error: unknown): StorageFailure | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  if (isConnectionError(error)) return "unavailable";
  if (isPgError(error, PgCodes.uniqueViolation) || isPgError(error, PgCodes.foreignKeyViolation)) return "conflict";
  if (isPgError(error, PgCodes.serializationFailure) || isPgError(error, PgCodes.deadlockDetected)) return "busy";
  const code = errorCode(error);
  // postgres.js marks errors the server sent with a `severity`; a bare "22..." from elsewhere is not one.
  if (code?.startsWith(PgCodes.dataExceptionClass) && code.length === 5 && "severity" in error) return "invalidData";
  return undefined;
}

/** Errors that mean "the database could not be reached", as opposed to a bad query. */
export function isConnectionError(error: unknown): boolean {
  const code = errorCode(error) ?? "";
  return (
    [
      "ECONNREFUSED",
      "ECONNRESET",
      "ETIMEDOUT",
      "CONNECT_TIMEOUT",
      "CONNECTION_CLOSED",
      "CONNECTION_ENDED",
      "CONNECTION_DESTROYED",
      "EPIPE",
      "ENOTFOUND",
      "57P01",
      "57P03",
      "53300",
    ].includes(code) || code.startsWith("08")
  );
}
