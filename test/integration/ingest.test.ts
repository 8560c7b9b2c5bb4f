import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@clickhouse/client";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { ADMIN_KEY, testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { getEngines } from "../helpers/engines.ts";
import { loadConfig } from "../../server/config.ts";
import { createDeps } from "../../server/runtime.ts";
import { createApp } from "../../server/app.ts";
import type { EventRow } from "../../server/ingest/index.ts";
import { Batcher } from "../../server/ingest/batcher.ts";
import { BLANK_EVENT } from "../helpers/event-rows.ts";

const ROOT = join(import.meta.dir, "..", "..");
const BUN = process.execPath;
let t: TestApp;
let ws: TestWorkspace;

/** A port the OS just handed out (and took back). */
function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

/** A custom-event row of this file's workspace. */
const sampleRow = (): EventRow => ({ ...BLANK_EVENT, workspace_id: ws.id, event: "sample" });

async function countWhere(where: string, params: Record<string, unknown>): Promise<number> {
  const result = await t.deps.ch.query({ query: `SELECT count() AS n FROM events WHERE ${where}`, query_params: params, format: "JSONEachRow" });
  return Number(((await result.json()) as any)[0].n);
}

beforeAll(async () => {
  t = await testApp();
  ws = await t.workspace(["events:write"]);
}, 120_000);

describe("group commit", () => {
  test("concurrent events are acknowledged only after their batch is written, in few INSERTs", async () => {
    const engines = await getEngines();
    let inserts = 0;
    // The real chDB client, counting its INSERTs.
    const ch = new Proxy(engines.ch, {
      get(target, prop, receiver) {
        if (prop === "insert") return (...args: unknown[]) => (inserts++, (target.insert as any)(...args));
        return Reflect.get(target, prop, receiver);
      },
    });
    const base = loadConfig({ DATA_DIR: engines.tmp, LOG_LEVEL: "error" });
    const deps = await createDeps(
      { ...base, eventLimits: { ...base.eventLimits, perWorkspacePerMinute: 100_000, perIpPerMinute: 100_000 } },
      { sql: engines.sql, ch },
    );
    const app = createApp(deps, { adminKey: ADMIN_KEY });
    const batch = crypto.randomUUID();
    const statuses = await Promise.all(
      Array.from({ length: 400 }, (_, i) =>
        app
          .handle(
            new Request("http://127.0.0.1/v1/event", {
              method: "POST",
              headers: { Authorization: `Bearer ${ws.token}`, "Content-Type": "application/json" },
              body: JSON.stringify({ event: "grouped", properties: { batch, i } }),
            }),
          )
          .then(async (r) => {
            // Acknowledged means written: the row is readable the moment the answer arrives.
            if (r.status === 202 && i % 100 === 0)
              expect(await countWhere("properties['batch'] = {b:String} AND properties['i'] = {i:String}", { b: batch, i: String(i) })).toBe(1);
            return r.status;
          }),
      ),
    );
    expect(statuses.filter((s) => s !== 202)).toEqual([]);
    expect(await countWhere("properties['batch'] = {b:String}", { b: batch })).toBe(400);
    expect(inserts).toBeLessThan(100);
    await deps.close();
  }, 60_000);

  test("an idle batcher sends at once; rows that waited for a busy INSERT go together after the gathering pause", async () => {
    const engines = await getEngines();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const inserts: { at: number; rows: number }[] = [];
    // The real chDB client, recording each INSERT; the first one is held back until released.
    const ch = new Proxy(engines.ch, {
      get(target, prop, receiver) {
        if (prop === "insert")
          return async (params: { values: unknown[] }) => {
            inserts.push({ at: performance.now(), rows: params.values.length });
            if (inserts.length === 1) await held;
            return target.insert(params as never);
          };
        return Reflect.get(target, prop, receiver);
      },
    });
    const batcher = new Batcher<EventRow>(ch, "events", { maxRows: 10_000, maxWaitMs: 5_000, concurrency: 1, gatherMs: 80 });
    const batch = crypto.randomUUID();
    const row = (i: number): EventRow => ({ ...sampleRow(), event: "gathered", properties: { batch, i: String(i) } });
    const first = batcher.add([row(0)]);
    for (let i = 0; i < 50 && inserts.length === 0; i++) await Bun.sleep(5);
    expect(inserts).toHaveLength(1);
    const rest = [1, 2, 3, 4, 5].map((i) => batcher.add([row(i)]));
    await Bun.sleep(20);
    release();
    await first;
    const firstDone = performance.now();
    await Promise.all(rest);
    expect(inserts.map((i) => i.rows)).toEqual([1, 5]);
    expect(inserts[1]!.at - firstDone).toBeGreaterThanOrEqual(70);
    expect(await countWhere("properties['batch'] = {b:String}", { b: batch })).toBe(6);
    await batcher.stop();
  });

  test("a ClickHouse outage: the event is acknowledged from the spool, a repeat of its event_id is the same event, and it lands once when ClickHouse is back", async () => {
    const engines = await getEngines();
    const dead = createClient({ url: "http://127.0.0.1:1", request_timeout: 2000 });
    const deps = await createDeps(loadConfig({ DATA_DIR: engines.tmp, LOG_LEVEL: "silent" }), { sql: engines.sql, ch: dead });
    const app = createApp(deps, { adminKey: ADMIN_KEY });
    const eventId = crypto.randomUUID();
    const body = JSON.stringify({ event: "outage", event_id: eventId });
    const send = () =>
      app.handle(
        new Request("http://127.0.0.1/v1/event", {
          method: "POST",
          headers: { Authorization: `Bearer ${ws.token}`, "Content-Type": "application/json" },
          body,
        }),
      );
    const res = await send();
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ ok: true, event: "outage", event_id: eventId });
    const spooled = async () =>
      (
        await engines.sql`SELECT count(*)::int AS n FROM ingest_spool WHERE refused IS NULL AND rows @> ${engines.sql.json([{ event_id: eventId }] as never)}`
      )[0]!.n;
    expect(await spooled()).toBe(1);
    expect(await countWhere("event_id = {e:String}", { e: eventId })).toBe(0);
    // A repeat on another process once the first claim is stale: the spool holds it, so it is the same event, not a second one.
    await engines.sql`UPDATE event_dedup SET created_at = created_at - interval '1 minute' WHERE event_id = ${eventId}`;
    const repeat = await t.call("POST", "/v1/event", { token: ws.token, body: JSON.parse(body) });
    expect(repeat.status).toBe(202);
    expect(await spooled()).toBe(1);
    await deps.close();
    await dead.close();
    // ClickHouse answers again: any process's drainer replays it, once.
    await t.deps.ingest.spool.drain();
    expect(await spooled()).toBe(0);
    expect(await countWhere("event_id = {e:String}", { e: eventId })).toBe(1);
    await t.deps.ingest.spool.drain();
    expect(await countWhere("event_id = {e:String}", { e: eventId })).toBe(1);
  }, 30_000);

  test("an INSERT that landed but whose answer was lost is spooled, and its replay is not counted twice", async () => {
    const engines = await getEngines();
    // ClickHouse takes the rows, then the connection drops before the answer (a timeout, a proxy restart).
    const lossy = new Proxy(engines.ch, {
      get(target, prop, receiver) {
        if (prop === "insert")
          return async (...args: Parameters<typeof target.insert>) => {
            await target.insert(...args);
            throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
          };
        return Reflect.get(target, prop, receiver);
      },
    });
    const deps = await createDeps(loadConfig({ DATA_DIR: engines.tmp, LOG_LEVEL: "silent" }), { sql: engines.sql, ch: lossy });
    const batch = crypto.randomUUID();
    const rows = [0, 1, 2].map((i) => ({ ...sampleRow(), event: "lossy", properties: { batch, i: String(i) } }));
    await deps.ingest.events.add(rows);
    expect(await countWhere("properties['batch'] = {b:String}", { b: batch })).toBe(3);
    await deps.close();
    await t.deps.ingest.spool.drain();
    expect(await countWhere("properties['batch'] = {b:String}", { b: batch })).toBe(3);
    const [left] = await engines.sql`SELECT count(*)::int AS n FROM ingest_spool WHERE refused IS NULL`;
    expect(left!.n).toBe(0);
  }, 30_000);

  test("the spool is bounded: past INGEST_SPOOL_MAX_ROWS an event is refused with 503 INGEST_BACKLOG_FULL and Retry-After, nothing kept", async () => {
    const engines = await getEngines();
    await t.deps.ingest.spool.drain();
    const dead = createClient({ url: "http://127.0.0.1:1", request_timeout: 2000 });
    const deps = await createDeps(loadConfig({ DATA_DIR: engines.tmp, LOG_LEVEL: "silent", INGEST_SPOOL_MAX_ROWS: "2" }), { sql: engines.sql, ch: dead });
    const app = createApp(deps, { adminKey: ADMIN_KEY });
    const send = (event: string) =>
      app.handle(
        new Request("http://127.0.0.1/v1/event", {
          method: "POST",
          headers: { Authorization: `Bearer ${ws.token}`, "Content-Type": "application/json" },
          body: JSON.stringify({ event }),
        }),
      );
    expect((await send("kept_one")).status).toBe(202);
    expect((await send("kept_two")).status).toBe(202);
    const refused = await send("refused");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("30");
    expect(await refused.json()).toMatchObject({ error: "INGEST_BACKLOG_FULL" });
    const [depth] = await engines.sql`SELECT coalesce(sum(row_count), 0)::int AS n FROM ingest_spool WHERE refused IS NULL`;
    expect(depth!.n).toBe(2);
    await deps.close();
    await dead.close();
    await t.deps.ingest.spool.drain();
    expect(await countWhere("event IN ('kept_one', 'kept_two', 'refused') AND workspace_id = {w:UInt64}", { w: ws.id })).toBe(2);
  }, 30_000);

  test("close() drains ingest: it resolves only when every waiting row is written, then refuses new ones with 500", async () => {
    const engines = await getEngines();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inserts = 0;
    // The real chDB client whose first INSERT is held back, so rows pile up behind it.
    const ch = new Proxy(engines.ch, {
      get(target, prop, receiver) {
        if (prop === "insert") return async (...args: unknown[]) => (inserts++ === 0 && (await held), (target.insert as any)(...args));
        return Reflect.get(target, prop, receiver);
      },
    });
    const base = loadConfig({ DATA_DIR: engines.tmp, LOG_LEVEL: "silent" });
    const deps = await createDeps(
      { ...base, ingest: { ...base.ingest, maxRows: 100_000, maxWaitMs: 60_000, concurrency: 1, gatherMs: 60_000 } },
      { sql: engines.sql, ch },
    );
    const app = createApp(deps, { adminKey: ADMIN_KEY });
    const batch = crypto.randomUUID();
    const post = (i: number) =>
      app.handle(
        new Request("http://127.0.0.1/v1/event", {
          method: "POST",
          headers: { Authorization: `Bearer ${ws.token}`, "Content-Type": "application/json" },
          body: JSON.stringify({ event: "drained", properties: { batch, i } }),
        }),
      );
    const answers = [post(0)];
    for (let i = 0; i < 50 && inserts === 0; i++) await Bun.sleep(10);
    for (let i = 1; i < 20; i++) answers.push(post(i));
    for (let i = 0; i < 50 && deps.ingest.events.backlog < 19; i++) await Bun.sleep(10);
    let drained = false;
    const stopping = deps.close().then(() => (drained = true));
    await Bun.sleep(100);
    expect(drained).toBe(false);
    expect(await countWhere("properties['batch'] = {b:String}", { b: batch })).toBe(0);
    release();
    await stopping;
    expect(await countWhere("properties['batch'] = {b:String}", { b: batch })).toBe(20);
    expect((await Promise.all(answers)).map((r) => r.status)).toEqual(Array(20).fill(202));
    const late = await post(20);
    expect(late.status).toBe(500);
    expect(await late.json()).toMatchObject({ error: "WRITE_FAILED" });
  }, 30_000);
});

describe("tables", () => {
  test("custom events go to a table no view runs on; player events reach `events` and the analytics slots through `player_events`", async () => {
    const tables = (await (
      await t.deps.ch.query({ query: "SELECT name, engine, dependencies_table FROM system.tables WHERE database = currentDatabase()", format: "JSONEachRow" })
    ).json()) as {
      name: string;
      engine: string;
      dependencies_table: string[];
    }[];
    const byName = new Map(tables.map((row) => [row.name, row]));
    expect(byName.get("events")!.dependencies_table).toEqual([]);
    expect(byName.get("player_events")!.engine).toBe("Null");
    // The split-test view (0008_split_tests.sql) also keeps the slots: the variation a session was served.
    expect([...byName.get("player_events")!.dependencies_table].sort()).toEqual([
      "analytics_session_slots_from_player_events",
      "analytics_session_slots_split_tests",
      // The funnel steps (0014_funnel_steps.sql): quiz answers and CTA clicks that name a next video.
      "funnel_steps_from_player_events",
      "player_events_to_events",
    ]);
    expect(byName.has("analytics_session_slots_mv")).toBe(false);

    const session = "slots-" + crypto.randomUUID();
    const row = (event_type: string, extra: Record<string, unknown> = {}) => ({
      ...BLANK_EVENT,
      workspace_id: ws.id,
      video_id: 77,
      video_code: "v77",
      event_type,
      event_id: crypto.randomUUID(),
      session_code: session,
      device_id: "d1",
      ...extra,
    });
    await t.deps.ingest.playerEvents.add([row("play"), row("watched", { video_time: 5, watch_seconds: 20 })]);
    await t.deps.ingest.events.add([row("custom", { event: "signup" })]);
    expect(await countWhere("workspace_id = {w:UInt64} AND session_code = {s:String}", { w: ws.id, s: session })).toBe(3);
    const slots = (await (
      await t.deps.ch.query({
        query:
          "SELECT max(played) AS played, sum(watched_s) AS watched, groupArrayArray(ranges) AS ranges FROM analytics_session_slots WHERE workspace_id = {w:UInt64} AND session_hash = cityHash64({s:String})",
        query_params: { w: ws.id, s: session },
        format: "JSONEachRow",
      })
    ).json()) as { played: number; watched: number; ranges: [number, number][] }[];
    expect(slots).toEqual([{ played: 1, watched: 20, ranges: [[5, 25]] }]);
  });
});

describe("crash safety", () => {
  const dirs: string[] = [];
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops) await drop().catch(() => {});
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  async function startServer(dataDir: string, port: number, databaseUrl?: string) {
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      DATA_DIR: dataDir,
      PORT: String(port),
      ADMIN_KEY,
      LOG_LEVEL: "error",
      IN_PROCESS_WORKERS: "0",
      EVENTS_RATE_LIMIT_PER_MINUTE: "1000000",
      EVENTS_RATE_LIMIT_PER_IP_PER_MINUTE: "1000000",
    };
    delete env.DATABASE_URL;
    delete env.CLICKHOUSE_URL;
    if (databaseUrl) env.DATABASE_URL = databaseUrl;
    const proc = Bun.spawn([BUN, "server/main.ts"], { cwd: ROOT, env, stdout: "pipe", stderr: "inherit" });
    let output = "";
    const reader = proc.stdout.getReader();
    const decoder = new TextDecoder();
    const deadline = Date.now() + 90_000;
    while (!output.includes("listening") && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      output += decoder.decode(value);
    }
    // Read the rest of the banner (the token follows the "listening" line).
    for (let i = 0; i < 20 && !/FRAMELINE_TOKEN=\S+/.test(output) && !output.includes("Admin key"); i++) {
      const { value, done } = await Promise.race([reader.read(), Bun.sleep(100).then(() => ({ value: undefined, done: false }))]);
      if (done) break;
      if (value) output += decoder.decode(value);
    }
    for (let i = 0; i < 10; i++) {
      const { value, done } = await Promise.race([reader.read(), Bun.sleep(100).then(() => ({ value: undefined, done: false }))]);
      if (done) break;
      if (value) output += decoder.decode(value);
    }
    reader.releaseLock();
    return { proc, token: /FRAMELINE_TOKEN=(\S+)/.exec(output)?.[1], output };
  }

  test("kill -9 under ingest load: every acknowledged event is in ClickHouse", async () => {
    const engines = await getEngines();
    const dataDir = await mkdtemp(join(engines.tmp, "crash-"));
    dirs.push(dataDir);
    let databaseUrl: string | undefined;
    if (engines.server) {
      const db = await engines.freshDatabase();
      drops.push(db.drop);
      databaseUrl = db.url;
    }
    const port = freePort();
    const { proc, token, output } = await startServer(dataDir, port, databaseUrl);
    expect(token, output).toBeString();

    const acked = new Set<string>();
    let sent = 0;
    let killed = false;
    const worker = async (w: number) => {
      for (let i = 0; !killed && i < 100_000; i++) {
        const seq = `${w}-${i}`;
        sent++;
        try {
          const res = await fetch(`http://127.0.0.1:${port}/v1/event`, {
            method: "POST",
            headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
            body: JSON.stringify({ event: "load", event_id: i % 2 ? `e-${seq}` : undefined, session_id: `s-${w}`, properties: { seq } }),
          });
          if (res.status >= 200 && res.status < 300) acked.add(seq);
          else await res.text();
        } catch {
          // The connection died with the process: not acknowledged.
        }
      }
    };
    const workers = Array.from({ length: 16 }, (_, w) => worker(w));
    for (let i = 0; i < 100 && acked.size < 1500; i++) await Bun.sleep(50);
    proc.kill(9);
    killed = true;
    await proc.exited;
    await Promise.all(workers);
    expect(acked.size).toBeGreaterThan(200);

    // A separate process opens the dead server's chDB directory and lists what is on disk.
    const reader = Bun.spawn([BUN, "test/helpers/read-events.ts", join(dataDir, "clickhouse")], { cwd: ROOT, stdout: "pipe", stderr: "inherit" });
    const stored = new Set<string>(JSON.parse(await new Response(reader.stdout).text()));
    expect(await reader.exited).toBe(0);
    const missing = [...acked].filter((seq) => !stored.has(seq));
    expect(missing).toEqual([]);
    expect(stored.size).toBeLessThanOrEqual(sent);

    // The server starts again on the same data and takes events.
    const port2 = freePort();
    const again = await startServer(dataDir, port2, databaseUrl);
    try {
      const res = await fetch(`http://127.0.0.1:${port2}/v1/event`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ event: "after_crash" }),
      });
      expect(res.status).toBe(202);
    } finally {
      again.proc.kill("SIGTERM");
      expect(await again.proc.exited).toBe(0);
    }
  }, 180_000);
});
