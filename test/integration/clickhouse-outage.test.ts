/**
 * Nothing lost when ClickHouse stumbles (README "Production"): two app instances
 * on one PostgreSQL and one ClickHouse server take custom events and player batches
 * while the ClickHouse server is stopped for 30 s; they answer from the spool, say
 * 503 on /ready while it is away, and once it is back every acknowledged event is
 * in ClickHouse exactly once. The ClickHouse server is chDB behind ClickHouse's HTTP
 * interface (test/helpers/clickhouse-http.ts), stopped and started again on the
 * same port and data directory.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@clickhouse/client";
import { connectClickHouse, migrateClickHouse, type Ch } from "../../server/storage/clickhouse.ts";
import { connectPostgres, migrate, type Sql } from "../../server/storage/postgres.ts";
import { spawnClickHouseHttp, type ClickHouseHttp } from "../helpers/clickhouse-http.ts";
import { getEngines } from "../helpers/engines.ts";
import { testApp, type TestApp } from "../helpers/app.ts";
import { loadConfig } from "../../server/config.ts";
import { READY_CACHE_MS } from "../../server/hosts/probes/service.ts";
import { until } from "../helpers/browser.ts";

const OUTAGE_MS = 30_000;
let dir: string;
let server: ClickHouseHttp | undefined;
let port: number;
let sql: Sql;
const clients: Ch[] = [];
const apps: TestApp[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "frameline-outage-"));
  server = await spawnClickHouseHttp({ path: join(dir, "clickhouse") });
  port = server.port;
  const engines = await getEngines();
  const db = await engines.freshDatabase();
  cleanups.push(db.drop);
  sql = connectPostgres(db.url, { max: 6 });
  cleanups.push(() => sql.end({ timeout: 2 }));
  await migrate(sql);
  const admin = createClient({ url: server.url });
  await admin.command({ query: "CREATE DATABASE outage" });
  await admin.close();
  for (let i = 0; i < 2; i++) {
    // A short insert timeout: an INSERT to a server that went away is spooled in seconds, not in ten.
    const ch = await connectClickHouse({ url: `${server.url}/outage`, embeddedPath: "" });
    clients.push(ch);
    if (i === 0) await migrateClickHouse(ch);
    const app = await testApp({ sql, ch, config: { ingest: { ...loadConfig({}).ingest, asyncInsert: true, insertTimeoutMs: 3000 } } });
    apps.push(app);
  }
}, 120_000);

afterAll(async () => {
  for (const app of apps) await app.deps.close().catch(() => {});
  for (const ch of clients) await ch.close().catch(() => {});
  for (const c of cleanups.reverse()) await c().catch(() => {});
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

test("ClickHouse stopped for 30 s under events on two instances: every acknowledged event lands once, and /ready said 503 meanwhile", async () => {
  const [a, b] = apps as [TestApp, TestApp];
  const ws = await a.workspace();
  const video = await a.createVideo(ws);
  const acked = new Set<string>();
  const ackedBatches: { session: string; seq: number; rows: number }[] = [];
  let sent = 0;
  const custom = async (app: TestApp, id: string) => {
    sent++;
    const res = await app.call("POST", "/v1/event", { token: ws.token, body: { event: "outage_probe", event_id: id } });
    if (res.status === 200 || res.status === 202) acked.add(id);
    return res.status;
  };
  const batch = async (app: TestApp, session: string, seq: number) => {
    sent++;
    const res = await app.call("POST", "/v1/collect", {
      body: {
        workspace_code: ws.code,
        video_code: video.code,
        session_id: session,
        seq,
        events: [
          { type: "pause", video_time: seq },
          { type: "seek", from: 0, to: seq },
        ],
      },
    });
    if (res.status === 200 && !res.body.duplicate) ackedBatches.push({ session, seq, rows: 2 });
    return res.status;
  };

  // Healthy: both instances ready, events land.
  for (const app of apps) expect((await app.call("GET", "/ready")).status).toBe(200);
  expect(await custom(a, "before-a")).toBe(202);
  expect(await batch(b, "sess-b", 1)).toBe(200);

  // ClickHouse goes away.
  await server!.stop();
  server = undefined;
  const down = Date.now();
  const readiness: number[] = [];
  let n = 0;
  while (Date.now() - down < OUTAGE_MS) {
    const app = n % 2 ? b : a;
    expect([200, 202]).toContain(await custom(app, `during-${n}`));
    expect(await batch(app, `sess-${n % 2 ? "b" : "a"}`, 2 + Math.floor(n / 2))).toBe(200);
    // Past the probe's one-second memory of the last answer, every instance says 503.
    if (n % 5 === 0 && Date.now() - down > 2 * READY_CACHE_MS) readiness.push((await app.call("GET", "/ready")).status);
    n++;
    await Bun.sleep(250);
  }
  const ready = await a.call("GET", "/ready");
  expect(ready.status).toBe(503);
  expect(ready.body.checks.clickhouse).not.toBe("ok");
  expect(ready.body.spool.rows).toBeGreaterThan(0);
  expect(readiness.length).toBeGreaterThan(2);
  expect(readiness.every((s) => s === 503)).toBe(true);

  // Back, on the same port and data.
  server = await spawnClickHouseHttp({ path: join(dir, "clickhouse"), port });
  await until(async () => (await a.call("GET", "/ready")).status === 200, 30_000, 500);
  await Promise.all(apps.map((app) => app.deps.ingest.spool.drain()));
  await until(async () => (await a.deps.ingest.spool.refresh()).batches === 0, 30_000, 500);

  const one = async (query: string, params: Record<string, unknown>) =>
    Number(((await (await clients[0]!.query({ query, query_params: params, format: "JSONEachRow" })).json()) as { n: string }[])[0]!.n);
  // Every acknowledged custom event once, and nothing that was not acknowledged.
  const rows = (await (
    await clients[0]!.query({
      query: "SELECT event_id, count() AS n FROM events WHERE workspace_id = {w:UInt64} AND event = 'outage_probe' GROUP BY event_id",
      query_params: { w: ws.id },
      format: "JSONEachRow",
    })
  ).json()) as { event_id: string; n: string }[];
  expect(rows.filter((r) => Number(r.n) !== 1)).toEqual([]);
  expect(new Set(rows.map((r) => r.event_id))).toEqual(acked);
  // Every acknowledged player batch once: two rows each.
  const playerRows = await one("SELECT count() AS n FROM events WHERE workspace_id = {w:UInt64} AND event_type IN ('pause', 'seek')", { w: ws.id });
  expect(playerRows).toBe(ackedBatches.reduce((s, x) => s + x.rows, 0));
  console.log(
    `clickhouse outage: sent=${sent} acked_events=${acked.size} acked_batches=${ackedBatches.length} player_rows=${playerRows} outage_s=${OUTAGE_MS / 1000}`,
  );
}, 180_000);
