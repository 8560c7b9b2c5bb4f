/**
 * Many processes, one truth (README "Running on several machines"): processes that
 * start together on one PostgreSQL and one ClickHouse server that already hold
 * events migrate them exactly once, and every ClickHouse migration can run again
 * without changing a figure. The ClickHouse server is chDB behind ClickHouse's
 * HTTP interface (test/helpers/clickhouse-http.ts), started here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@clickhouse/client";
import { connectClickHouse, splitStatements } from "../../server/storage/clickhouse.ts";
import { spawnClickHouseHttp, type ClickHouseHttp } from "../helpers/clickhouse-http.ts";
import { figures, historyBefore0006, writeAfterUpgrade } from "../helpers/clickhouse-history.ts";
import { slotMutationsDone } from "../helpers/clickhouse-before.ts";
import { getEngines } from "../helpers/engines.ts";

const ROOT = join(import.meta.dir, "..", "..");
const SCHEMA_DIR = join(ROOT, "server", "storage", "clickhouse");
let server: ClickHouseHttp | undefined;
let dir: string;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "frameline-many-"));
  server = await spawnClickHouseHttp({ path: join(dir, "clickhouse") });
}, 120_000);
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** An empty database on the fixture, as the URL a process is given. */
async function chDatabase(name: string): Promise<string> {
  const admin = createClient({ url: server!.url });
  await admin.command({ query: `CREATE DATABASE ${name}` });
  await admin.close();
  return `${server!.url}/${name}`;
}

/** Starts `count` processes at the same moment that migrate the given engines, and waits for all. */
async function migrateTogether(count: number, env: Record<string, string>): Promise<void> {
  const processes = Array.from({ length: count }, () =>
    Bun.spawn([join(ROOT, "node_modules/.bin/bun"), "test/helpers/migrate-process.ts"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DATA_DIR: dir, ...env },
      stdout: "pipe",
      stderr: "pipe",
    }),
  );
  for (const p of processes) {
    const [out, err] = [await new Response(p.stdout).text(), await new Response(p.stderr).text()];
    expect({ exit: await p.exited, out, err: err.slice(-2000) }).toEqual({ exit: 0, out: "migrated\n", err: "" });
  }
}

describe("migrations with several processes", () => {
  test("two processes starting together on events an older version wrote give every figure one process gives", async () => {
    const engines = await getEngines();
    if (!engines.server) return; // two processes need a PostgreSQL server to share (embedded PGlite is one process)
    const solo = { pg: await engines.freshDatabase(), ch: await chDatabase("solo") };
    const pair = { pg: await engines.freshDatabase(), ch: await chDatabase("pair") };
    cleanups.push(solo.pg.drop, pair.pg.drop);
    for (const target of [solo, pair]) await (await historyBefore0006(target.ch)).close();

    await migrateTogether(1, { DATABASE_URL: solo.pg.url, CLICKHOUSE_URL: solo.ch });
    await migrateTogether(2, { DATABASE_URL: pair.pg.url, CLICKHOUSE_URL: pair.ch });

    const [one, two] = [await connectClickHouse({ url: solo.ch, embeddedPath: "" }), await connectClickHouse({ url: pair.ch, embeddedPath: "" })];
    cleanups.push(
      () => one.close(),
      () => two.close(),
    );
    for (const ch of [one, two]) await slotMutationsDone(ch);
    const expected = await figures(one);
    // The history is really there: two played sessions, a purchase of 40 and a sale of 25 without a session.
    expect(expected.sessions.n).toBe(2);
    expect(Number(expected.sessions.watched)).toBe(600 + 300);
    expect(expected.overview).toMatchObject({ plays: 2, orders: { USD: 1 }, revenue: { USD: 40 } });
    expect(expected.sales).toEqual({ n: 2, amount: 65 });
    expect(await figures(two)).toEqual(expected);

    // Each ClickHouse migration recorded once.
    const versions = await (await two.query({ query: "SELECT version, count() AS n FROM schema_migrations GROUP BY version", format: "JSONEachRow" })).json<{
      n: string;
    }>();
    expect(versions.length).toBe((await readdir(SCHEMA_DIR)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).length);
    for (const v of versions) expect(Number(v.n)).toBe(1);
  }, 180_000);

  test("every ClickHouse migration run again, after this version wrote more, changes no figure", async () => {
    const url = await chDatabase("again");
    const ch = await historyBefore0006(url);
    cleanups.push(() => ch.close());
    const { migrateClickHouse } = await import("../../server/storage/clickhouse.ts");
    await migrateClickHouse(ch);
    await writeAfterUpgrade(ch);
    await slotMutationsDone(ch);
    const before = await figures(ch);
    expect(before.sessions.n).toBe(3);
    expect(Number(before.sessions.watched)).toBe(600 + 300 + 60);
    expect(before.sales).toEqual({ n: 3, amount: 75 });

    for (const file of (await readdir(SCHEMA_DIR)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort())
      for (const statement of splitStatements(await Bun.file(join(SCHEMA_DIR, file)).text())) await ch.command({ query: statement });
    await slotMutationsDone(ch);
    expect(await figures(ch)).toEqual(before);
  }, 180_000);
});
