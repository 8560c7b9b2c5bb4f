/**
 * Migrations apply in order, exactly once, even when several processes start
 * together; the database (PGlite when embedded) keeps concurrent connections
 * apart; and a ClickHouse migration upgrades data written before it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { connectPostgres, migrate, type Sql } from "../../server/storage/postgres.ts";
import { getEngines } from "../helpers/engines.ts";

const ROOT = join(import.meta.dir, "..", "..");
const MIGRATIONS_DIR = join(ROOT, "server", "storage", "postgres");
const pools: Sql[] = [];
const drops: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const pool of pools.splice(0)) await pool.end({ timeout: 2 }).catch(() => {});
  for (const drop of drops.splice(0)) await drop().catch(() => {});
});

/**
 * Runs a ClickHouse upgrade script in its own process (chDB allows one data directory
 * per process) on a fresh ClickHouse: a data directory of its own, or a database of its
 * own on CLICKHOUSE_URL's server. Returns what it printed.
 */
async function upgradeInItsOwnProcess(script: string, ...args: string[]) {
  const fresh = await (await getEngines()).freshClickHouse();
  drops.push(fresh.drop);
  const upgrade = Bun.spawn([process.execPath, script, fresh.target, ...args], { cwd: ROOT, stdout: "pipe", stderr: "inherit" });
  const out = await new Response(upgrade.stdout).text();
  expect(await upgrade.exited).toBe(0);
  return JSON.parse(out);
}

describe("migrate()", () => {
  test("three concurrent migrators on a fresh database apply each migration exactly once; a rerun applies nothing", async () => {
    const engines = await getEngines();
    const db = await engines.freshDatabase();
    drops.push(db.drop);
    const versions = (await readdir(MIGRATIONS_DIR))
      .filter((f) => /^\d{4}_.+\.sql$/.test(f))
      .sort()
      .map((f) => f.replace(/\.sql$/, ""));
    expect(versions.length).toBeGreaterThan(0);

    const three = [0, 1, 2].map(() => connectPostgres(db.url, { max: 2 }));
    pools.push(...three);
    const results = await Promise.all(three.map((sql) => migrate(sql)));

    // Together they applied every version once, in order; nobody applied one twice.
    const applied = results.flat();
    expect([...applied].sort()).toEqual(versions);
    for (const result of results) expect(result).toEqual([...result].sort());

    const rows = await three[0]!`SELECT version, count(*)::int AS n FROM schema_migrations GROUP BY version ORDER BY version`;
    expect(rows.map((r) => r.version)).toEqual(versions);
    for (const row of rows) expect(row.n).toBe(1);

    // The schema is really there.
    const tables = await three[1]!`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`;
    const names = tables.map((r) => r.table_name);
    for (const table of ["workspaces", "api_tokens", "videos", "folders", "video_drafts", "outbox", "idempotency_keys", "rate_limits"])
      expect(names).toContain(table);

    // Running again, concurrently or not, applies nothing.
    expect(await Promise.all(three.map((sql) => migrate(sql)))).toEqual([[], [], []]);
    expect(await migrate(three[2]!)).toEqual([]);
    const [count] = await three[0]!`SELECT count(*)::int AS n FROM schema_migrations`;
    expect(count!.n).toBe(versions.length);
  }, 60_000);
});

describe("concurrent connections", () => {
  test("transactions and queries on many connections never see each other's statements or rows", async () => {
    const engines = await getEngines();
    const db = await engines.freshDatabase();
    drops.push(db.drop);
    const sql = connectPostgres(db.url, { max: 8 });
    pools.push(sql);
    await sql`CREATE TABLE probe (id int PRIMARY KEY, name text NOT NULL)`;
    await sql`INSERT INTO probe SELECT g, 'n' || g FROM generate_series(1, 30) g`;
    const failures: string[] = [];
    await Promise.all(
      Array.from({ length: 240 }, async (_, i) => {
        const id = 1 + (i % 30);
        try {
          if (i % 3 === 0) {
            await sql.begin(async (tx) => {
              await tx`UPDATE probe SET name = name WHERE id = ${id}`;
              const [row] = await tx`SELECT name FROM probe WHERE id = ${id}`;
              if (row?.name !== `n${id}`) failures.push(`tx read ${id}: ${JSON.stringify(row)}`);
            });
          } else if (i % 3 === 1) {
            const [row] = await sql`SELECT id, name FROM probe WHERE id = ${id}`;
            if (row?.id !== id) failures.push(`read ${id}: ${JSON.stringify(row)}`);
          } else {
            const [row] = await sql`SELECT count(*)::int AS n FROM probe WHERE id <= ${id}`;
            if (row?.n !== id) failures.push(`count ${id}: ${JSON.stringify(row)}`);
          }
        } catch (error) {
          failures.push(String(error));
        }
      }),
    );
    expect(failures).toEqual([]);
  }, 60_000);
});

describe("ClickHouse upgrade", () => {
  test("0005 fills the retention masks of slot rows written and merged before it, in their parts, as the read would build them", async () => {
    const result = await upgradeInItsOwnProcess("test/helpers/clickhouse-upgrade.ts", "0005");
    expect(result.applied[0]).toBe("0005_retention_mask");
    // Session a's two writes (the first without a duration) merged before the upgrade: its mask covers both ranges.
    expect(result.rows).toEqual([
      { range_count: 2, duration_s: 100, mask_min_duration_s: 100, mask_max_duration_s: 100, mask_as_built: 1 },
      { range_count: 1, duration_s: 100, mask_min_duration_s: 100, mask_max_duration_s: 100, mask_as_built: 1 },
    ]);
    expect(result.partsWithMask).toBeGreaterThan(0);
  }, 60_000);

  test("0006 keeps what older rows meant: an older player's play is still a play, sales written before are read; an unmuted autoplay is a play, a muted one is not", async () => {
    const result = await upgradeInItsOwnProcess("test/helpers/clickhouse-upgrade-0006.ts");
    expect(result.applied[0]).toBe("0006_seller_analytics");
    expect(result).toMatchObject({ before: 2, after: 2, withNew: 3 });
    expect(result.sales).toEqual([{ key: "api:o-1", amount: 40, is_verified: 1 }]);
  }, 60_000);

  test("0009 resolves the traffic source of slot rows written before it: utm_source, else the referrer, else direct; new rows get it as written", async () => {
    const result = await upgradeInItsOwnProcess("test/helpers/clickhouse-upgrade-0009.ts");
    expect(result.applied[0]).toBe("0009_source");
    const before = [
      ["direct", 1],
      ["google.com", 1],
      ["newsletter", 1],
    ];
    expect(result.afterUpgrade).toEqual(before);
    expect(result.after).toEqual([["ads", 1], ...before]);
    expect(result.stored).toEqual(["ads", "google.com", "newsletter"]);
  }, 60_000);

  test("0010 packs each slot row's yes/no facts into flags: the overview's counts are the same before its mutation has run, after, and for new rows", async () => {
    const result = await upgradeInItsOwnProcess("test/helpers/clickhouse-upgrade-0010.ts");
    expect(result.applied[0]).toBe("0010_session_flags");
    // Shown: lead, muted, unmuted, the older player's play and the session over two slots; an unmute is a play.
    const before = { impressions: 5, plays: 4, autoplays: 2, unmutes: 1, leads: 1 };
    expect(result.afterUpgrade).toEqual(before);
    expect(result.afterMutation).toEqual(before);
    expect(result.after).toEqual({ impressions: 6, plays: 5, autoplays: 3, unmutes: 2, leads: 1 });
    // Bits: 1 loaded, 2 played, 4 autoplayed, 8 unmuted, 16 lead.
    expect(result.stored).toEqual({
      lead: 1 + 2 + 16,
      muted: 1 + 4,
      unmuted: 1 + 2 + 4 + 8,
      "older-player": 2,
      "not-shown": 0,
      "two-slots": 1 + 2,
      new: 1 + 2 + 4 + 8,
    });
  }, 60_000);

  test("0011 keeps each session written before it as one row that starts at its first slot; rows written after it join their session", async () => {
    const result = await upgradeInItsOwnProcess("test/helpers/clickhouse-upgrade-0011.ts");
    expect(result.applied[0]).toBe("0011_session_start");
    // [started, flags (1 loaded, 2 played, 4 autoplayed), watched seconds]
    expect(result.afterUpgrade).toEqual({
      sessions: [
        ["2026-11-01 10:00:00", 3, 60],
        ["2026-11-01 11:00:00", 5, 0],
      ],
      overview: { impressions: 2, plays: 1, autoplays: 1, watch_played_s: 60 },
    });
    expect(result.after).toEqual({
      sessions: [
        ["2026-11-01 10:00:00", 3, 90],
        ["2026-11-01 11:00:00", 5, 0],
      ],
      overview: { impressions: 2, plays: 1, autoplays: 1, watch_played_s: 90 },
    });
  }, 60_000);
});
