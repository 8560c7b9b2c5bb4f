/**
 * The registry of processes (README "Running on several machines"): each app and
 * worker registers on the shared PostgreSQL; a configuration that would split the
 * truth is refused with one line; the operator route lists who runs.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { mkdtemp } from "node:fs/promises";
import { loadConfig } from "../../server/config.ts";
import { connectPostgres, migrate, type Sql } from "../../server/storage/postgres.ts";
import { registerProcess, TopologyError, type Registration } from "../../server/domains/processes/service.ts";
import { createLog } from "../../server/log.ts";
import { getEngines } from "../helpers/engines.ts";
import { ADMIN_KEY, testApp } from "../helpers/app.ts";

const ROOT = join(import.meta.dir, "..", "..");
const log = createLog("silent");
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

/** A fresh database of its own, so the registry holds only this test's processes. */
async function registryDatabase(): Promise<{ sql: Sql; url: string }> {
  const engines = await getEngines();
  const db = await engines.freshDatabase();
  const sql = connectPostgres(db.url, { max: 3 });
  cleanups.push(db.drop, () => sql.end({ timeout: 2 }));
  await migrate(sql);
  return { sql, url: db.url };
}

const shared = {
  DATABASE_URL: "postgres://app:secret@db.internal:5432/frameline",
  CLICKHOUSE_URL: "http://default:pw@clickhouse.internal:8123",
  S3_BUCKET: "frameline",
  S3_ENDPOINT: "http://minio.internal:9000",
  PUBLIC_URL: "https://video.example.com",
};

describe("process registry", () => {
  test("apps and a worker on the same engines register; a process that would split the truth is refused and leaves no row", async () => {
    const { sql } = await registryDatabase();
    const register = async (env: Record<string, string>, role: "app" | "worker") => {
      const registration = await registerProcess({ sql, log, config: loadConfig({ DATA_DIR: "/tmp/frameline-registry", ...env }) }, role);
      cleanups.push(() => registration.stop());
      return registration;
    };
    const a = await register(shared, "app");
    await register(shared, "app");
    await register({ ...shared, PUBLIC_URL: "" }, "worker");

    const refusals = [
      { env: { ...shared, CLICKHOUSE_URL: "" }, says: "set CLICKHOUSE_URL to the ClickHouse server they use (server http://clickhouse.internal:8123/)" },
      { env: { ...shared, CLICKHOUSE_URL: "http://other:8123" }, says: "set the same CLICKHOUSE_URL (and CLICKHOUSE_CLUSTER) on every process" },
      { env: { ...shared, S3_BUCKET: "" }, says: "set S3_BUCKET" },
      { env: { ...shared, PUBLIC_URL: "" }, says: "set PUBLIC_URL" },
    ];
    for (const { env, says } of refusals) {
      const refused = await register(env, "app").catch((e) => e);
      expect(refused).toBeInstanceOf(TopologyError);
      expect(refused.message).toContain(says);
      // Credentials never reach the sentence or the registry.
      expect(refused.message).not.toContain("secret");
      expect(refused.message).not.toContain(":pw@");
    }
    const rows = await sql`SELECT role, engines, public_url FROM processes ORDER BY started_at`;
    expect(rows.map((r) => r.role)).toEqual(["app", "app", "worker"]);
    expect(rows[0]!.engines).toEqual({
      postgres: "server",
      clickhouse: "server http://clickhouse.internal:8123/",
      media: "s3 http://minio.internal:9000/frameline",
    });
    expect(rows[2]!.public_url).toBeNull();

    // A stopped process is gone from the registry at once.
    await a.stop();
    expect((await sql`SELECT count(*)::int AS n FROM processes`)[0]!.n).toBe(2);
  });

  test("a row of this machine whose process died (kill -9) does not block the next start", async () => {
    const { sql } = await registryDatabase();
    const dead = Bun.spawn(["true"]);
    await dead.exited;
    const os = await import("node:os");
    await sql`INSERT INTO processes (id, role, host, pid, version, engines, public_url)
              VALUES (${crypto.randomUUID()}, 'app', ${os.hostname()}, ${dead.pid}, '0', ${sql.json({ postgres: "server", clickhouse: "embedded x", media: "fs x" } as never)}, NULL)`;
    const single = loadConfig({ DATABASE_URL: "postgres://db/frameline", DATA_DIR: await mkdtemp("/tmp/frameline-registry-") });
    const registration: Registration = await registerProcess({ sql, log, config: single }, "app");
    cleanups.push(() => registration.stop());
    expect((await sql`SELECT count(*)::int AS n FROM processes`)[0]!.n).toBe(1);
  });

  test("GET /admin/v1/processes lists the live processes, without credentials; it needs the admin key", async () => {
    const { sql } = await registryDatabase();
    const t = await testApp({ sql });
    const registration = await registerProcess({ sql, log, config: loadConfig({ DATA_DIR: "/tmp/frameline-registry", ...shared }) }, "app");
    cleanups.push(() => registration.stop());
    expect((await t.call("GET", "/admin/v1/processes")).status).toBe(401);
    const listed = await t.call("GET", "/admin/v1/processes", { token: ADMIN_KEY });
    expect(listed.status).toBe(200);
    expect(listed.body.processes).toHaveLength(1);
    expect(listed.body.processes[0]).toMatchObject({ id: registration.id, role: "app", public_url: "https://video.example.com", pid: process.pid });
    expect(listed.text).not.toContain("secret");
  });

  test("npm start refuses a second process on the filesystem store with one line and exit code 1", async () => {
    const engines = await getEngines();
    if (!engines.server) return; // embedded PGlite is one process by construction: nothing to share
    const { sql, url } = await registryDatabase();
    await sql`INSERT INTO processes (id, role, host, pid, version, engines, public_url)
              VALUES (${crypto.randomUUID()}, 'app', 'another-host', 1, '0',
                      ${sql.json({ postgres: "server", clickhouse: "embedded another-host:/data/clickhouse", media: "fs another-host:/data/media" } as never)}, NULL)`;
    const dir = await mkdtemp("/tmp/frameline-refused-");
    const started = Bun.spawn([join(ROOT, "node_modules/.bin/bun"), "server/main.ts"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DATABASE_URL: url, DATA_DIR: dir, PORT: "0", LOG_LEVEL: "silent" },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await started.exited).toBe(1);
    const said = (await new Response(started.stderr).text()).trim().split("\n");
    expect(said).toHaveLength(1);
    expect(said[0]).toStartWith("Frameline cannot start: ");
    expect(said[0]).toContain("CLICKHOUSE_URL");
    expect((await sql`SELECT count(*)::int AS n FROM processes`)[0]!.n).toBe(1);
  }, 60_000);
});
