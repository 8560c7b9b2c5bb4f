/**
 * Many processes, one truth (docs/architecture.md "One process or many"): two app
 * processes (`bun server/main.ts`, no in-process workers) and one worker
 * (`bun server/worker.ts`) as an operator runs them, over a fresh PostgreSQL
 * database, the machine's Redis, s3rver as the S3 store and the ClickHouse HTTP
 * fixture, behind Caddy balancing round robin. Every check goes through Caddy,
 * and to each app directly where it is about two apps answering alike.
 *
 * Needs DATABASE_URL (README "Tests"): processes cannot share embedded PGlite.
 * The figures it sees are printed as one line at the end ("topology: ...").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@clickhouse/client";
import type { Subprocess } from "bun";
import { connectPostgres, type Sql } from "../../server/storage/postgres.ts";
import { SUPPORTED_EVENTS } from "../../server/api/webhooks/model.ts";
import { startCaddy, type Caddy } from "../helpers/caddy.ts";
import { spawnClickHouseHttp, type ClickHouseHttp } from "../helpers/clickhouse-http.ts";
import { serverDatabase } from "../helpers/engines.ts";
import { clip } from "../helpers/media.ts";
import { BUN, freePort, ROOT } from "../helpers/process.ts";
import { startReceiver, type Receiver } from "../helpers/receiver.ts";
import { spawnS3rver } from "../helpers/s3rver.ts";
import { evenSplit } from "../helpers/split-viewers.ts";

const ADMIN_URL = process.env.DATABASE_URL;
const SKIP_REASON = 'needs DATABASE_URL: processes cannot share embedded PGlite (README "Tests")';

/** Small on purpose: the shared count is what is checked, and the other reads of this file use tokens of their own. */
const READS_PER_MINUTE = 100;
/** A few hundred KB: the clip (8.7 MB) takes 17 chunks, and crosses S3's 5 MiB part size while they alternate. */
const CHUNK = 512 * 1024;
const BUCKET = "frameline-topology";
const ADMIN_KEY = `fla_topology_${crypto.randomUUID().replace(/-/g, "")}`;
const SCRIPTS: Record<string, string> = (await Bun.file(join(ROOT, "package.json")).json()).scripts;
/** The bun flags package.json gives a script (`npm start`, `npm run worker`). */
const argsOf = (script: string) => SCRIPTS[script]!.split(/\s+/).slice(1);

/** What the test saw, printed as one line at the end. */
const figures: Record<string, string | number> = {};
const timings: Record<string, number> = {};
async function timed<T>(phase: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    timings[phase] = Math.round((performance.now() - started) / 100) / 10;
  }
}

interface Frameline {
  name: string;
  role: "app" | "worker";
  proc: Subprocess;
  dir: string;
  /** The app's own origin (apps only). */
  url: string;
}

let dir: string;
let db: { url: string; drop(): Promise<void> } | undefined;
let sql: Sql | undefined;
let s3: Awaited<ReturnType<typeof spawnS3rver>> | undefined;
let clickhouse: (ClickHouseHttp & { proc: Subprocess }) | undefined;
let chUrl: string;
let caddy: Caddy | undefined;
let receiver: Receiver | undefined;
const processes: Frameline[] = [];
let appA: Frameline;
let appB: Frameline;
let worker: Frameline;
let baseEnv: Record<string, string>;

/** The main workspace and its tokens: one per purpose, so each read budget is this file's to plan. */
let ws: { id: number; code: string };
const tokens: Record<"main" | "poll" | "analytics" | "limited", string> = { main: "", poll: "", analytics: "", limited: "" };
let subscriptionId: number;

function killGroup(p: Subprocess, signal: NodeJS.Signals): void {
  try {
    // Detached: the process leads its own group, so ffmpeg and any other child go with it.
    process.kill(-p.pid, signal);
  } catch {}
}

async function stopGroup(p: Subprocess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return killGroup(p, "SIGKILL");
  killGroup(p, "SIGTERM");
  if ((await Promise.race([p.exited, Bun.sleep(15_000).then(() => "late")])) === "late") killGroup(p, "SIGKILL");
  await p.exited;
  killGroup(p, "SIGKILL");
}

async function logsOf(p: Frameline): Promise<string> {
  const [out, err] = await Promise.all([readFile(join(p.dir, "out.log"), "utf8").catch(() => ""), readFile(join(p.dir, "err.log"), "utf8").catch(() => "")]);
  return `stdout:\n${out.slice(-2000)}\nstderr:\n${err.slice(-4000)}`;
}

/** Polls `check` until it answers something truthy; throws with `what` after `timeoutMs`. */
async function until<T>(what: string | (() => string), check: () => Promise<T> | T, timeoutMs: number, stepMs = 200): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === "string" ? what : what()}`);
    await Bun.sleep(stepMs);
  }
}

/** `bun server/main.ts` or `bun server/worker.ts` in a process group of its own, its output in files. */
async function spawnFrameline(name: string, role: "app" | "worker", env: Record<string, string>): Promise<Frameline> {
  const home = join(dir, name);
  await mkdir(home, { recursive: true });
  const proc = Bun.spawn([BUN, ...argsOf(role === "app" ? "start" : "worker")], {
    cwd: ROOT,
    env: { ...baseEnv, DATA_DIR: join(home, "data"), ...env },
    detached: true,
    stdin: "ignore",
    stdout: Bun.file(join(home, "out.log")),
    stderr: Bun.file(join(home, "err.log")),
  });
  const p: Frameline = { name, role, proc, dir: home, url: env.PORT ? `http://127.0.0.1:${env.PORT}` : "" };
  processes.push(p);
  return p;
}

async function ready(p: Frameline): Promise<void> {
  await until(
    `${p.name} to start`,
    async () => {
      if (p.proc.exitCode !== null) throw new Error(`${p.name} exited with ${p.proc.exitCode} at start\n${await logsOf(p)}`);
      if (p.role === "worker") return (await readFile(join(p.dir, "out.log"), "utf8").catch(() => "")).includes("Frameline worker running");
      return (await fetch(`${p.url}/health`).catch(() => undefined))?.ok;
    },
    120_000,
    250,
  );
}

interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** One request to `base` (Caddy's origin or an app's), JSON in and out. */
async function call(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; raw?: BodyInit; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  let body: BodyInit | undefined = opts.raw;
  if (opts.body !== undefined) {
    headers["Content-Type"] ??= "application/json";
    body = JSON.stringify(opts.body);
  }
  const response = await fetch(base + path, { method, headers, body, signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000) });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: response.status, headers: response.headers, body: parsed, text };
}

const admin = (method: string, path: string, body?: unknown) => call(caddy!.url, method, path, { token: ADMIN_KEY, body });

async function createVideo(base: string, title: string): Promise<{ id: number; code: string; script_url: string }> {
  const created = await call(base, "POST", "/api/v1/videos", { token: tokens.main, body: { title } });
  expect(created.status).toBe(201);
  return created.body.video;
}

/** Today's window and the days around it, so a run across midnight UTC counts every session. */
function windowQuery(): string {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  return `from=${day(-1)}&to=${day(1)}`;
}

/** The ClickHouse rows of one video's custom events by event_id, read from the fixture itself. */
async function storedEventIds(videoId: number): Promise<Map<string, number>> {
  const client = createClient({ url: chUrl });
  try {
    const result = await client.query({
      query: "SELECT event_id, count() AS n FROM events WHERE workspace_id = {w:UInt64} AND video_id = {v:UInt64} AND event_type = 'custom' GROUP BY event_id",
      query_params: { w: ws.id, v: videoId },
      format: "JSONEachRow",
    });
    return new Map((await result.json<{ event_id: string; n: string | number }>()).map((r) => [r.event_id, Number(r.n)]));
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  if (!ADMIN_URL) return;
  await timed("start", async () => {
    dir = await mkdtemp(join(tmpdir(), "frameline-topology-"));
    db = await serverDatabase(ADMIN_URL);
    s3 = await spawnS3rver({ bucket: BUCKET, directory: join(dir, "s3rver") });
    clickhouse = await spawnClickHouseHttp({ path: join(dir, "clickhouse") });
    const chDb = `frameline_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
    const chAdmin = createClient({ url: clickhouse.url });
    await chAdmin.command({ query: `CREATE DATABASE ${chDb}` });
    await chAdmin.close();
    chUrl = `${clickhouse.url}/${chDb}`;
    receiver = startReceiver();

    // Caddy first: its address is every process's PUBLIC_URL.
    const [caddyPort, portA, portB] = [await freePort(), await freePort(), await freePort()];
    caddy = await startCaddy({ port: caddyPort, upstreams: [`127.0.0.1:${portA}`, `127.0.0.1:${portB}`], dir: join(dir, "caddy") });
    baseEnv = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      TMPDIR: process.env.TMPDIR ?? tmpdir(),
      LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      DATABASE_URL: db.url,
      CLICKHOUSE_URL: chUrl,
      REDIS_URL: "redis://127.0.0.1:6379",
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: "us-east-1",
      S3_FORCE_PATH_STYLE: "1",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      // The worker too: the encoder and the publisher build URLs from it (docs/architecture.md "One process or many").
      PUBLIC_URL: caddy.url,
      ADMIN_KEY,
      WEBHOOK_ALLOW_PRIVATE: "1",
      IN_PROCESS_WORKERS: "0",
      RATE_LIMIT_READS_PER_MINUTE: String(READS_PER_MINUTE),
      RATE_LIMIT_WRITES_PER_MINUTE: "100000",
      // The events host's own limits are not under test here; the event load must not meet them.
      EVENTS_RATE_LIMIT_PER_MINUTE: "10000000",
      EVENTS_RATE_LIMIT_PER_IP_PER_MINUTE: "10000000",
    };
    // Started together: the migrations run once, under the advisory lock.
    appA = await spawnFrameline("app-a", "app", { PORT: String(portA) });
    appB = await spawnFrameline("app-b", "app", { PORT: String(portB) });
    worker = await spawnFrameline("worker", "worker", {});
    await Promise.all([ready(appA), ready(appB), ready(worker)]);
    // Caddy's health checks (every second) have found both apps up: a round of requests through it all answer.
    await until(
      "Caddy to route to both apps",
      async () => (await Promise.all([0, 1, 2, 3].map(() => fetch(`${caddy!.url}/health`)))).every((r) => r.ok),
      30_000,
      250,
    );

    sql = connectPostgres(db.url, { max: 2 });
    // Rate-limit counts in the machine's Redis are keyed by token id: this run's ids start at a
    // random point, so another run on the machine in the same minute never shares a count.
    await sql.unsafe(`ALTER SEQUENCE api_tokens_id_seq RESTART WITH ${1_000_000 + Math.floor(Math.random() * 1_000_000_000)}`);

    const created = await admin("POST", "/admin/v1/workspaces", { name: "Topology" });
    expect(created.status).toBe(201);
    ws = { id: created.body.workspace.id, code: created.body.workspace.code };
    const mint = async (scopes: string[]) => {
      const minted = await admin("POST", `/admin/v1/workspaces/${ws.id}/tokens`, { name: "topology", scopes });
      expect(minted.status).toBe(201);
      return minted.body.secret as string;
    };
    tokens.main = await mint(["videos:read", "videos:write", "events:write", "webhooks:write", "analytics:read"]);
    tokens.poll = await mint(["videos:read"]);
    tokens.analytics = await mint(["analytics:read"]);
    tokens.limited = await mint(["videos:read"]);
    // Every lifecycle event of this workspace from here on goes to the receiver: checked in "webhooks".
    const hook = await call(caddy.url, "POST", "/api/v1/webhooks", {
      token: tokens.main,
      body: { name: "topology", url: `${receiver.url}/hook`, events: [...SUPPORTED_EVENTS], secret: "topology-secret-0123456789" },
    });
    expect(hook.status).toBe(201);
    subscriptionId = hook.body.webhook.id;
  });
}, 240_000);

afterAll(async () => {
  // One line with what the run saw, for the closing note (also after a failure: whatever was measured).
  const line = [...Object.entries(figures).map(([k, v]) => `${k}=${v}`), ...Object.entries(timings).map(([k, v]) => `${k}_s=${v}`)].join(" ");
  if (line) console.log(`topology: ${line}`);
  await Promise.all(processes.map((p) => stopGroup(p.proc)));
  if (caddy) await caddy.stop();
  await receiver?.stop();
  await sql?.end({ timeout: 5 }).catch(() => {});
  await clickhouse?.stop().catch(() => {});
  await s3?.stop().catch(() => {});
  await db?.drop().catch(() => {});
  if (dir && !process.env.TOPOLOGY_KEEP) await rm(dir, { recursive: true, force: true });
}, 120_000);

describe.skipIf(!ADMIN_URL)(`many processes, one truth (${SKIP_REASON})`, () => {
  test("the registry lists 2 apps and 1 worker on the same engines; a third app on the filesystem store refuses to start with one line", async () => {
    await timed("registry", async () => {
      const listed = await admin("GET", "/admin/v1/processes");
      expect(listed.status).toBe(200);
      const rows = listed.body.processes as { role: string; pid: number; engines: Record<string, string>; public_url: string | null }[];
      expect(rows.map((r) => r.role).sort()).toEqual(["app", "app", "worker"]);
      expect(rows.map((r) => r.pid).sort()).toEqual([appA.proc.pid, appB.proc.pid, worker.proc.pid].sort());
      const engines = { postgres: "server", clickhouse: `server ${chUrl}`, media: `s3 ${s3!.endpoint}/${BUCKET}` };
      for (const row of rows) expect(row.engines).toEqual(engines);
      for (const row of rows) expect(row.public_url).toBe(caddy!.url);

      const { S3_BUCKET: _b, S3_ENDPOINT: _e, S3_FORCE_PATH_STYLE: _f, S3_ACCESS_KEY_ID: _k, S3_SECRET_ACCESS_KEY: _s, S3_REGION: _r, ...noS3 } = baseEnv;
      const third = Bun.spawn([BUN, ...argsOf("start")], {
        cwd: ROOT,
        env: { ...noS3, DATA_DIR: join(dir, "app-c"), PORT: String(await freePort()) },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const [exit, out, err] = await Promise.all([third.exited, new Response(third.stdout).text(), new Response(third.stderr).text()]);
      const said = err.trim().split("\n");
      expect({ exit, out, lines: said.length }).toEqual({ exit: 1, out: "", lines: 1 });
      expect(said[0]).toStartWith("Frameline cannot start: ");
      expect(said[0]).toContain("S3_BUCKET");
      figures.refusal = JSON.stringify(said[0]);
      const after = await admin("GET", "/admin/v1/processes");
      expect(after.body.processes).toHaveLength(3);
    });
  }, 60_000);

  test("an upload whose chunks alternate between the apps reaches ready, encoded by the worker", async () => {
    await timed("upload", async () => {
      const video = await createVideo(caddy!.url, "Alternating chunks");
      const bytes = new Uint8Array(await Bun.file(await clip("mpeg4")).arrayBuffer());
      const init = await call(caddy!.url, "POST", `/api/v1/videos/${video.id}/upload/init`, {
        token: tokens.main,
        body: { filename: "noise.mp4", size: bytes.length, mime_type: "video/mp4" },
      });
      expect(init.status).toBe(201);
      const uploadId = init.body.upload_id as string;
      expect(init.body.upload_url).toBe(`${caddy!.url}/api/v1/uploads/${uploadId}`);

      // Chunk n goes to app n % 2 directly: that is what proves they alternate.
      const apps = [appA, appB];
      const perApp = [0, 0];
      let n = 0;
      for (let offset = 0; offset < bytes.length; offset += CHUNK, n++) {
        const piece = bytes.subarray(offset, offset + CHUNK);
        const sent = await call(apps[n % 2]!.url, "PATCH", `/api/v1/uploads/${uploadId}`, {
          token: tokens.main,
          raw: piece,
          headers: { "Content-Type": "application/offset+octet-stream", "Upload-Offset": String(offset) },
        });
        expect(sent.status).toBe(200);
        expect(sent.body).toEqual({ offset: offset + piece.length, size: bytes.length });
        perApp[n % 2]!++;
      }
      figures.chunks = n;
      figures.chunks_on_a = perApp[0]!;
      figures.chunks_on_b = perApp[1]!;
      expect(perApp[0]).toBeGreaterThan(1);
      expect(perApp[1]).toBeGreaterThan(1);
      // Where the upload stands reads the same from either app.
      for (const app of apps) {
        const read = await call(app.url, "GET", `/api/v1/uploads/${uploadId}`, { token: tokens.main });
        expect(read.body).toMatchObject({ offset: bytes.length, size: bytes.length });
      }
      const completed = await call(caddy!.url, "POST", `/api/v1/uploads/${uploadId}/complete`, { token: tokens.main });
      expect(completed.status).toBe(202);

      const encodeStarted = performance.now();
      const status = await until(
        "the video to settle",
        async () => {
          const read = await call(caddy!.url, "GET", `/api/v1/videos/${video.id}/status`, { token: tokens.poll });
          expect(read.status).toBe(200);
          return read.body.status === "processing" ? undefined : (read.body.status as string);
        },
        180_000,
        // A read a second stays within the poll token's budget (READS_PER_MINUTE) however long encoding takes.
        1000,
      );
      figures.encode_s = Math.round((performance.now() - encodeStarted) / 100) / 10;
      expect(status).toBe("ready");
      // Encoded by the worker: the apps run no workers (IN_PROCESS_WORKERS=0).
      const jobs = await sql!`SELECT state, locked_by FROM encode_jobs WHERE video_id = ${video.id}`;
      expect(jobs.length).toBeGreaterThan(0);
      for (const job of jobs) {
        expect(job.state).toBe("done");
        expect(String(job.locked_by)).toStartWith(`${hostname()}:${worker.proc.pid}:`);
      }
      // The stream plays from the store every process shares, through Caddy.
      const full = await call(caddy!.url, "GET", `/api/v1/videos/${video.id}`, { token: tokens.poll });
      const hls = full.body.video.landscape_hls as string;
      expect(hls).toStartWith(`${caddy!.url}/`);
      for (const base of [caddy!.url, appA.url, appB.url]) {
        const master = await fetch(base + new URL(hls).pathname);
        expect(master.status).toBe(200);
        expect(await master.text()).toContain("#EXTM3U");
      }
    });
  }, 300_000);

  test("player and custom events sent to both apps give one overview and one summary, equal from either app and to what was sent", async () => {
    await timed("events", async () => {
      const video = await createVideo(caddy!.url, "Watched on both apps");
      const apps = [appA, appB];
      const viewers = Array.from({ length: 12 }, (_, i) => ({
        i,
        session: `s-${crypto.randomUUID()}`,
        device: `d-${crypto.randomUUID()}`,
        played: i % 3 !== 0,
        watched: 2 + (i % 4),
        ended: i % 4 === 1,
        cta: i % 5 === 2,
      }));
      const batch = (v: (typeof viewers)[number], events: Record<string, unknown>[]) => ({
        workspace_code: ws.code,
        video_code: video.code,
        session_id: v.session,
        device_id: v.device,
        events,
      });
      let batches = 0;
      for (const v of viewers) {
        // One session's batches on both apps: the load on one, the playback on the other.
        const shown = await call(apps[v.i % 2]!.url, "POST", "/v1/collect", { body: batch(v, [{ type: "load", video_time: 0 }]) });
        expect(shown.status).toBe(200);
        batches++;
        const later: Record<string, unknown>[] = [];
        if (v.played) later.push({ type: "play", video_time: 0 }, { type: "watched", from_s: 0, to_s: v.watched });
        if (v.played && v.ended) later.push({ type: "ended", video_time: v.watched });
        if (v.played && v.cta) later.push({ type: "cta_click", video_time: 1, card_index: 0 });
        if (later.length === 0) continue;
        const played = await call(apps[(v.i + 1) % 2]!.url, "POST", "/v1/collect", { body: batch(v, later) });
        expect(played.status).toBe(200);
        batches++;
      }
      // Custom events of these sessions: to app A, app B and through Caddy in turn.
      const targets = [appA.url, appB.url, caddy!.url];
      const customs = viewers.slice(0, 10);
      for (const [k, v] of customs.entries()) {
        const sent = await call(targets[k % 3]!, "POST", "/v1/event", {
          token: tokens.main,
          body: { event: "signed_up", event_id: `custom-${v.session}`, session_id: v.session, properties: { k } },
        });
        expect(sent.status).toBe(200);
        expect(sent.body).toMatchObject({ attributed: true, matched_by: "session_id" });
      }

      const played = viewers.filter((v) => v.played);
      const watch = played.reduce((sum, v) => sum + v.watched, 0);
      const expected = {
        impressions: viewers.length,
        plays: played.length,
        unique_viewers: viewers.length,
        autoplays: 0,
        cta_clicks: [{ card_index: 0, sessions: played.filter((v) => v.cta).length }],
      };
      const q = windowQuery();
      // Answered only after the rows were written (docs/architecture.md "Ingest"): no wait needed, and none is made.
      const overviews = await Promise.all(
        [caddy!.url, appA.url, appB.url].map((base) => call(base, "GET", `/api/v1/videos/${video.id}/analytics/overview?${q}`, { token: tokens.analytics })),
      );
      for (const o of overviews) expect(o.status).toBe(200);
      expect(overviews[0]!.body.overview).toMatchObject(expected);
      expect(overviews[0]!.body.overview.avg_watch_time_s).toBeCloseTo(watch / played.length, 2);
      expect(overviews[0]!.body.overview.play_rate).toBeCloseTo(played.length / viewers.length, 3);
      expect(overviews[1]!.body).toEqual(overviews[0]!.body);
      expect(overviews[2]!.body).toEqual(overviews[0]!.body);

      // The summary is cached per process for 60 s: its first read in each process comes after every write.
      const summaries = await Promise.all(
        [appA.url, appB.url].map((base) => call(base, "GET", `/api/v1/videos/${video.id}/analytics/summary?${q}`, { token: tokens.analytics })),
      );
      const completions = played.filter((v) => v.ended).length;
      expect(summaries[0]!.body.summary).toMatchObject({
        plays: played.length,
        unique_plays: played.length,
        completion_count: completions,
        // Bounce: played, under 5 s watched, not completed (README "What the numbers mean").
        bounce_count: played.filter((v) => v.watched < 5 && !v.ended).length,
      });
      expect(summaries[0]!.body.summary.avg_watch_time_s).toBeCloseTo(watch / played.length, 2);
      expect(summaries[0]!.body.summary.completion_rate).toBeCloseTo(completions / played.length, 3);
      expect(summaries[1]!.body).toEqual(summaries[0]!.body);
      expect(summaries[1]!.headers.get("etag")).toBe(summaries[0]!.headers.get("etag"));

      const customRead = await Promise.all(
        [caddy!.url, appA.url, appB.url].map((base) =>
          call(base, "GET", `/api/v1/videos/${video.id}/analytics/events?event_type=custom&per_page=100`, { token: tokens.analytics }),
        ),
      );
      expect(customRead[0]!.body.events.total).toBe(customs.length);
      expect(customRead[1]!.body).toEqual(customRead[0]!.body);
      expect(customRead[2]!.body).toEqual(customRead[0]!.body);
      figures.player_batches = batches;
      figures.impressions = expected.impressions;
      figures.plays = expected.plays;
      figures.custom_events = customs.length;
    });
  }, 120_000);

  test("the read limit is one budget for both apps: requests alternating across them get 429 after the limit in total", async () => {
    await timed("rate_limit", async () => {
      const video = await createVideo(caddy!.url, "Limited reads");
      // Fixed one-minute windows (docs/api.md "Limits"): the burst must not straddle two of them.
      const left = () => 60_000 - (Date.now() % 60_000);
      if (left() < 15_000) await until("the next minute's window", () => left() > 55_000, 20_000, 100);
      // Caddy (which alternates), app A and app B in turn: every process keeps taking requests to the end.
      const targets = [caddy!.url, appA.url, appB.url];
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < READS_PER_MINUTE * 2; i++) {
        const read = await call(targets[i % 3]!, "GET", `/api/v1/videos/${video.id}`, { token: tokens.limited });
        statuses.push(read.status);
        if (read.status === 429) retryAfter ??= read.headers.get("retry-after");
      }
      const ok = statuses.filter((s) => s === 200).length;
      const first429 = statuses.indexOf(429);
      figures.rate_limit = READS_PER_MINUTE;
      figures.rate_limit_answered = ok;
      figures.rate_limit_first_429 = first429;
      // The shared store reserves before answering: never more than the limit (at most 1 % over is tolerated),
      // and reserved hits are spent, so the limit is reached.
      expect(ok).toBeGreaterThanOrEqual(READS_PER_MINUTE);
      expect(ok).toBeLessThanOrEqual(READS_PER_MINUTE + Math.floor(READS_PER_MINUTE / 100));
      expect(statuses.slice(0, ok)).toEqual(Array(ok).fill(200));
      expect(statuses.slice(ok)).toEqual(Array(statuses.length - ok).fill(429));
      expect(Number(retryAfter)).toBeGreaterThan(0);
    });
  }, 120_000);

  test("each webhook is delivered once: events caused on both apps reach the receiver with every delivery id exactly once", async () => {
    await timed("webhooks", async () => {
      // More lifecycle events, on app A, app B and through Caddy in turn.
      const targets = [appA.url, appB.url, caddy!.url];
      const made: number[] = [];
      for (let i = 0; i < 6; i++) made.push((await createVideo(targets[i % 3]!, `Hooked ${i}`)).id);
      for (const [i, id] of made.slice(0, 3).entries()) {
        const deleted = await call(targets[(i + 1) % 3]!, "DELETE", `/api/v1/videos/${id}`, { token: tokens.main });
        expect(deleted.status).toBe(200);
      }
      const announced = async () => (await sql!`SELECT event_id FROM outbox WHERE workspace_id = ${ws.id}`).map((r) => String(r.event_id));
      await until(
        "every outbox event of the workspace delivered",
        async () => {
          const ids = await announced();
          const [pending] = await sql!`SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = ${subscriptionId} AND state <> 'delivered'`;
          return pending!.n === 0 && ids.every((id) => receiver!.ids.has(id));
        },
        60_000,
        250,
      );
      const ids = await announced();
      const byEvent: Record<string, number> = {};
      for (const r of receiver!.requests) byEvent[r.json?.event] = (byEvent[r.json?.event] ?? 0) + 1;
      figures.outbox_events = ids.length;
      figures.deliveries = receiver!.requests.length;
      figures.delivery_duplicates = receiver!.duplicates();
      expect(byEvent["video.created"]).toBeGreaterThanOrEqual(6);
      expect(byEvent["video.deleted"]).toBe(3);
      expect(receiver!.duplicates()).toBe(0);
      expect(receiver!.requests.length).toBe(ids.length);
      expect([...receiver!.ids].sort()).toEqual(ids.sort());
    });
  }, 120_000);

  test("a split-test viewer gets the same variation from either app; a pause on one app reaches the other", async () => {
    await timed("split_test", async () => {
      const [control, other] = [await createVideo(caddy!.url, "Control"), await createVideo(caddy!.url, "Challenger")];
      const created = await call(caddy!.url, "POST", "/api/v1/split-tests", {
        token: tokens.main,
        body: {
          name: "Either app",
          goal: "play",
          variations: evenSplit(control.id, other.id),
        },
      });
      expect(created.status).toBe(201);
      const st = created.body.split_test as { id: number; code: string; variations: { id: number; video_code: string }[] };
      const assign = async (base: string, session: string, device: string) => {
        const res = await call(base, "POST", "/v1/split-test", {
          headers: { "Content-Type": "text/plain" },
          body: { workspace_code: ws.code, split_test: st.code, session_id: session, device_id: device },
        });
        expect(res.status).toBe(200);
        return res.body as { variation_id: number; video_code: string; in_test: boolean };
      };
      const seen = new Set<number>();
      let viewers = 0;
      let onOther: string | undefined;
      for (let i = 0; i < 24; i++) {
        const device = `d-${crypto.randomUUID()}`;
        const session = `s-${crypto.randomUUID()}`;
        const onA = await assign(appA.url, session, device);
        const onB = await assign(appB.url, session, device);
        // A new page view of the same device (another session) through Caddy.
        const again = await assign(caddy!.url, `s-${crypto.randomUUID()}`, device);
        expect(onA.in_test).toBe(true);
        expect(onB).toEqual(onA);
        expect(again).toEqual(onA);
        seen.add(onA.variation_id);
        if (onA.variation_id !== st.variations[0]!.id) onOther ??= device;
        viewers++;
      }
      figures.split_viewers = viewers;
      expect(seen.size).toBe(2);

      // Paused on app A: app B serves the control once its 5 s serving cache lapses (README "Split tests");
      // the bound leaves room for requests slowed by a loaded machine.
      const paused = await call(appA.url, "POST", `/api/v1/split-tests/${st.id}/pause`, { token: tokens.main });
      expect(paused.status).toBe(200);
      const pausedAt = performance.now();
      await until(
        "app B to serve the paused test's control",
        async () => (await assign(appB.url, `s-${crypto.randomUUID()}`, onOther!)).variation_id === st.variations[0]!.id,
        20_000,
        100,
      );
      const propagation = performance.now() - pausedAt;
      figures.split_pause_seen_on_b_ms = Math.round(propagation);
      expect(propagation).toBeLessThan(5_000 + 5_000);
    });
  }, 120_000);

  test("a deploy on one app serves the new bundle from the other, never a 304 for the bundle it served before", async () => {
    await timed("deploy", async () => {
      const video = await createVideo(caddy!.url, "Deployed on one app");
      const path = new URL(video.script_url).pathname;
      expect(video.script_url).toBe(`${caddy!.url}${path}`);
      const deploy = async (base: string, color: string) => {
        const res = await call(base, "POST", `/api/v1/videos/${video.id}/deploy`, { token: tokens.main, body: { style_options: { main_color: color } } });
        expect(res.status).toBe(200);
      };
      const script = (base: string, etag?: string) => fetch(base + path, { headers: etag ? { "If-None-Match": etag } : {} });

      await deploy(appA.url, "#101010");
      // The race is a few milliseconds wide (a NOTIFY heard after the deploy answered): many rounds.
      const rounds = 40;
      for (let round = 0; round < rounds; round++) {
        // Deploys alternate between the apps; the other one is read at once.
        const [deployer, reader] = round % 2 === 0 ? [appA, appB] : [appB, appA];
        const before = await script(reader.url);
        expect(before.status).toBe(200);
        const etag = before.headers.get("etag")!;
        const oldBody = await before.text();
        // The reader now keeps this validator: a revalidation is a 304 without a bucket read.
        expect((await script(reader.url, etag)).status).toBe(304);

        const color = `#e11d${(round + 10).toString(16).padStart(2, "0")}`;
        await deploy(deployer.url, color);
        const after = await script(reader.url, etag);
        expect(after.status).toBe(200);
        const newBody = await after.text();
        expect(newBody).not.toBe(oldBody);
        expect(newBody).toContain(color);
        expect(after.headers.get("etag")).not.toBe(etag);
        // The deployer and Caddy serve the same bytes.
        expect(await (await script(deployer.url)).text()).toBe(newBody);
        expect(await (await script(caddy!.url)).text()).toBe(newBody);
      }
      figures.deploy_rounds = rounds;
    });
  }, 180_000);

  test("killing one app under event load loses no acknowledged event, and every retry lands exactly once", async () => {
    await timed("kill", async () => {
      const video = await createVideo(caddy!.url, "Under load");
      const N = 1500;
      const LANES = 24;
      const runId = crypto.randomUUID().slice(0, 8);
      const id = (i: number) => `load-${runId}-${i}`;
      const targets = [caddy!.url, appA.url, appB.url];
      const send = (base: string, i: number) =>
        call(base, "POST", "/v1/event", {
          token: tokens.main,
          body: { event: "load_test", event_id: id(i), video_code: video.code, properties: { i } },
          timeoutMs: 30_000,
        });
      const acked = new Set<number>();
      const failures: Record<string, number> = {};
      let killedAt = -1;
      let next = 0;
      const lane = async () => {
        while (next < N) {
          const i = next++;
          try {
            const res = await send(targets[i % 3]!, i);
            if (res.status >= 200 && res.status < 300) acked.add(i);
            else failures[`http_${res.status}`] = (failures[`http_${res.status}`] ?? 0) + 1;
          } catch (error) {
            const name = (error as { code?: string }).code ?? (error as Error).name;
            failures[name] = (failures[name] ?? 0) + 1;
          }
          // App B dies (SIGKILL) with a third acknowledged and requests in flight on it.
          if (killedAt < 0 && acked.size >= N / 3) {
            killedAt = i;
            killGroup(appB.proc, "SIGKILL");
          }
        }
      };
      const loadStarted = performance.now();
      await Promise.all(Array.from({ length: LANES }, lane));
      const loadSeconds = (performance.now() - loadStarted) / 1000;
      expect(killedAt).toBeGreaterThan(0);
      await appB.proc.exited;
      const firstPass = new Set(acked);
      figures.events_sent = N;
      figures.events_acked = firstPass.size;
      figures.events_unacked = N - firstPass.size;
      figures.events_unacked_by = Object.entries(failures)
        .map(([k, v]) => `${k}:${v}`)
        .join(",");
      figures.killed_at_request = killedAt;
      figures.events_per_s = Math.round(N / loadSeconds);

      // Every acknowledged event is stored exactly once.
      const stored = await storedEventIds(video.id);
      figures.events_stored_first_pass = stored.size;
      for (const i of firstPass) expect(stored.get(id(i))).toBe(1);
      for (const [eventId, n] of stored) if (n !== 1) throw new Error(`${eventId} stored ${n} times`);

      // The rest, retried through Caddy with the same event_id, land once too: a claim left by the
      // dead app is taken over once it is stale (docs/architecture.md "Ingest").
      const missing = Array.from({ length: N }, (_, i) => i).filter((i) => !acked.has(i));
      const retryStarted = performance.now();
      let retries = 0;
      // Retries not accepted: mostly WRITE_FAILED while a claim the dead app left is under 30 s old.
      let refused = 0;
      const lastRefusal = new Map<number, string>();
      await until(
        () => `every unacknowledged event to be accepted on retry (still refused: ${JSON.stringify([...lastRefusal].slice(0, 5))})`,
        async () => {
          for (const i of missing.filter((j) => !acked.has(j))) {
            retries++;
            const res = await send(caddy!.url, i).catch((error) => ({ status: 0, text: String(error) }));
            if (res.status >= 200 && res.status < 300) {
              acked.add(i);
              lastRefusal.delete(i);
            } else {
              refused++;
              lastRefusal.set(i, `${res.status} ${res.text.slice(0, 200)}`);
            }
          }
          return acked.size === N;
        },
        120_000,
        1000,
      ).finally(() => {
        figures.retries = retries;
        figures.retries_refused = refused;
        figures.retry_s = Math.round((performance.now() - retryStarted) / 100) / 10;
      });
      const after = await storedEventIds(video.id);
      figures.events_stored = after.size;
      expect(after.size).toBe(N);
      for (const [eventId, n] of after) if (n !== 1) throw new Error(`${eventId} stored ${n} times after the retries`);
      const total = await call(caddy!.url, "GET", `/api/v1/videos/${video.id}/analytics/events?event_type=custom&per_page=1`, { token: tokens.analytics });
      expect(total.body.events.total).toBe(N);
    });
  }, 300_000);

  test("after everything, still each delivery exactly once", async () => {
    const ids = (await sql!`SELECT event_id FROM outbox WHERE workspace_id = ${ws.id}`).map((r) => String(r.event_id));
    await until(
      "every outbox event delivered",
      async () => {
        const [pending] = await sql!`SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = ${subscriptionId} AND state <> 'delivered'`;
        return pending!.n === 0 && ids.every((id) => receiver!.ids.has(id));
      },
      60_000,
      250,
    );
    expect(receiver!.duplicates()).toBe(0);
    expect(receiver!.requests.length).toBe(ids.length);
    figures.deliveries_total = ids.length;
  }, 90_000);
});
