/**
 * `POST /v1/event` (valid token, realistic bodies, acknowledged only after the
 * ClickHouse write) against a bare `Bun.serve` that parses the same JSON and
 * answers the same shape, with the same load generator in one run (docs/architecture.md "What fast means here").
 * Then the server is stopped (SIGTERM drains) and a separate process counts the
 * rows in its chDB: they must equal the 2xx answers. A second Frameline row runs the
 * same load with CLICKHOUSE_URL (INSERTs with `async_insert=1, wait_for_async_insert=1`)
 * against the ClickHouse HTTP fixture of the tests. Each Frameline row says how many rows
 * its process put in the ingest spool: none while ClickHouse is healthy, so the spool
 * costs nothing on that path (README "The ingest spool").
 *
 * Load generator: wrk (2 threads) with a Lua script that builds varied bodies
 * (known sessions, devices, emails, properties, values, unique event_ids on a
 * fifth) and counts 2xx answers itself. wrk cuts requests still in flight at
 * its deadline, which would leave rows nobody counted; so for the last 2 s it
 * sends only `GET /health`, every POST is answered before the cut, and the
 * POST window is timed by the script. Without wrk: a Bun fetch process that
 * stops at its deadline and waits for every answer.
 *
 * Run: `node_modules/.bin/bun bench/ingest.bench.ts` (or `npm run bench ingest`).
 * BENCH_SECONDS (POST window, default 8), BENCH_CONNECTIONS (default 1024: an
 * endpoint that answers after the write serves at most connections / latency),
 * BENCH_DATABASE_URL (a PostgreSQL server instead of the embedded one),
 * BENCH_SERVER_FLAGS (extra `bun` flags for the server, e.g. `--cpu-prof`).
 * Besides the table it reports the server's CPU per event, by thread.
 * Targets: ratio >= 0.5 and >= 20,000 events/s (embedded).
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { report } from "./lib/report.ts";
import { stealMeter } from "./lib/steal.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 1024);
const TAIL_SECONDS = 2;
/** Every Nth event carries an event_id (0: none). */
const EVENT_ID_EVERY = Number(process.env.BENCH_EVENT_ID_EVERY ?? 5);
const GENERATOR = Bun.which("wrk") ? "wrk -t2 (Lua bodies)" : "bun-fetch (separate process)";
const ROOT = join(import.meta.dir, "..");

interface LoadSpec {
  url: string;
  token: string;
  seconds: number;
  connections: number;
  sessions: string[];
  videoCode: string;
  /** Unique per load run, so no event_id repeats across runs. */
  run: string;
}
interface LoadOut {
  sent: number;
  ok2xx: number;
  non2xx: number;
  failed: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
}

// ---- child roles ----------------------------------------------------------
const role = process.argv[2];
if (role === "--load") {
  const spec = JSON.parse(process.argv[3]!) as LoadSpec;
  const names = ["signup", "add_to_cart", "checkout_started", "video_cta", "newsletter_optin", "webinar_registered"];
  const plans = ["free", "pro", "team", "enterprise"];
  let seq = 0;
  // Realistic bodies: a known session most of the time, sometimes a device or an email only,
  // a few properties, a value on some, an event_id on a fifth (unique, so none is a duplicate).
  const body = (worker: number) => {
    const n = seq++;
    const kind = n % 10;
    const b: Record<string, unknown> = { event: names[n % names.length] };
    if (kind < 6) b.session_id = spec.sessions[n % spec.sessions.length];
    else if (kind < 8) b.device_id = `bench-device-${n % 500}`;
    else b.email = `buyer${n % 1000}@example.com`;
    b.properties = { plan: plans[n % plans.length]!, page: `/pricing/${n % 20}`, ab: n % 2 ? "a" : "b" };
    if (n % 3 === 0) b.value = (n % 100) + 0.99;
    if (EVENT_ID_EVERY > 0 && n % EVENT_ID_EVERY === 0) b.event_id = `bench-${spec.run}-${worker}-${n}`;
    return JSON.stringify(b);
  };
  const latencies: number[] = [];
  const out: LoadOut = { sent: 0, ok2xx: 0, non2xx: 0, failed: 0, seconds: 0, p50Ms: 0, p99Ms: 0 };
  const headers = { Authorization: `Bearer ${spec.token}`, "Content-Type": "application/json" };
  const started = performance.now();
  const deadline = started + spec.seconds * 1000;
  await Promise.all(
    Array.from({ length: spec.connections }, async (_, worker) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        out.sent++;
        try {
          const res = await fetch(spec.url, { method: "POST", headers, body: body(worker) });
          await res.arrayBuffer();
          latencies.push(performance.now() - t0);
          if (res.status >= 200 && res.status < 300) out.ok2xx++;
          else out.non2xx++;
        } catch {
          out.failed++;
        }
      }
    }),
  );
  out.seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  out.p50Ms = latencies[Math.floor(latencies.length * 0.5)] ?? NaN;
  out.p99Ms = latencies[Math.floor(latencies.length * 0.99)] ?? NaN;
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}
if (role === "--bare") {
  // The baseline: parse the same JSON and answer the same shape.
  const server = Bun.serve({
    port: Number(process.argv[3]),
    hostname: "127.0.0.1",
    async fetch(request) {
      if (request.method === "GET") return Response.json({ ok: true });
      const body = (await request.json()) as { event: string; event_id?: string };
      return Response.json({ ok: true, event: body.event, event_id: body.event_id ?? null, attributed: false, matched_by: null }, { status: 202 });
    },
  });
  process.stdout.write(`ready ${server.port}\n`);
  await new Promise(() => {});
}
if (role === "--count") {
  const { connectClickHouse } = await import("../server/storage/clickhouse.ts");
  const ch = await connectClickHouse({ embeddedPath: process.argv[3]! });
  const result = await ch.query({ query: "SELECT count() AS n FROM events WHERE event_type = 'custom'", format: "JSONEachRow" });
  process.stdout.write(String(Number(((await result.json()) as { n: string | number }[])[0]!.n)));
  await ch.close();
  process.exit(0);
}

// ---- wrk ------------------------------------------------------------------
function lua(spec: LoadSpec): string {
  const q = (v: string) => JSON.stringify(v);
  return `
local threads = {}
local n_threads = 0
function setup(thread)
  n_threads = n_threads + 1
  thread:set("tid", n_threads)
  table.insert(threads, thread)
end
local names = { "signup", "add_to_cart", "checkout_started", "video_cta", "newsletter_optin", "webinar_registered" }
local plans = { "free", "pro", "team", "enterprise" }
local headers = { ["Content-Type"] = "application/json", ["Authorization"] = ${q("Bearer " + spec.token)} }
local path = ${q(new URL(spec.url).pathname)}
local n = 0
local stop_at, switched = nil, false
ok2xx, non2xx, t0, t1 = 0, 0, 0, 0
local function now_ns()
  local f = io.popen("date +%s%N"); local s = f:read("*l"); f:close(); return tonumber(s)
end
function init(args)
  stop_at = os.time() + ${spec.seconds}
  t0 = now_ns()
end
function request()
  if not switched and os.time() >= stop_at then switched = true; t1 = now_ns() end
  if switched then return wrk.format("GET", "/health") end
  n = n + 1
  local kind = n % 10
  local who
  if kind < 6 then who = string.format('"session_id":"bench-session-%d"', n % ${spec.sessions.length})
  elseif kind < 8 then who = string.format('"device_id":"bench-device-%d"', n % 500)
  else who = string.format('"email":"buyer%d@example.com"', n % 1000) end
  local extra = ""
  if n % 3 == 0 then extra = extra .. string.format(',"value":%d.99', n % 100) end
  if ${EVENT_ID_EVERY} > 0 and n % ${EVENT_ID_EVERY} == 0 then extra = extra .. string.format(',"event_id":"bench-${spec.run}-%d-%d"', tid, n) end
  local body = string.format('{"event":"%s",%s,"properties":{"plan":"%s","page":"/pricing/%d","ab":"%s"}%s}',
    names[n % 6 + 1], who, plans[n % 4 + 1], n % 20, (n % 2 == 1) and "a" or "b", extra)
  return wrk.format("POST", path, headers, body)
end
function response(status, headers, body)
  if string.find(body, '"event"', 1, true) then
    if status >= 200 and status < 300 then ok2xx = ok2xx + 1 else non2xx = non2xx + 1 end
  end
end
function done(summary, latency, requests)
  local ok, bad, window = 0, 0, 0
  for _, t in ipairs(threads) do
    ok = ok + t:get("ok2xx"); bad = bad + t:get("non2xx")
    local w = (t:get("t1") - t:get("t0")) / 1e9
    if w > window then window = w end
  end
  io.write(string.format('RESULT {"ok2xx":%d,"non2xx":%d,"window":%f,"p50":%f,"p99":%f,"socket_errors":%d}',
    ok, bad, window, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
  io.write(string.char(10))
end
`;
}

async function wrk(spec: LoadSpec): Promise<LoadOut> {
  const script = join(tmpdir(), `frameline-ingest-${process.pid}-${spec.run}.lua`);
  await Bun.write(script, lua(spec));
  const proc = Bun.spawn(["wrk", "-t2", `-c${spec.connections}`, `-d${spec.seconds + TAIL_SECONDS}s`, "--timeout", "10s", "-s", script, spec.url], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const text = await new Response(proc.stdout).text();
  await proc.exited;
  await rm(script, { force: true });
  const m = /RESULT (\{.*\})/.exec(text);
  if (!m) throw new Error(`wrk said:\n${text}`);
  const r = JSON.parse(m[1]!) as { ok2xx: number; non2xx: number; window: number; p50: number; p99: number; socket_errors: number };
  return { sent: r.ok2xx + r.non2xx, ok2xx: r.ok2xx, non2xx: r.non2xx, failed: r.socket_errors, seconds: r.window, p50Ms: r.p50, p99Ms: r.p99 };
}

// ---- the bench ------------------------------------------------------------
const freePort = () => {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
};

async function readUntil(stream: ReadableStream<Uint8Array>, pattern: RegExp, timeoutMs: number): Promise<string> {
  const reader = stream.getReader();
  let out = "";
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(out)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}:\n${out}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`process exited:\n${out}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  void stream.pipeTo(new WritableStream()).catch(() => {});
  return out;
}

async function load(spec: LoadSpec): Promise<LoadOut> {
  if (Bun.which("wrk")) return wrk(spec);
  const proc = Bun.spawn([process.execPath, import.meta.path, "--load", JSON.stringify(spec)], { stdout: "pipe", stderr: "inherit" });
  const text = await new Response(proc.stdout).text();
  await proc.exited;
  return JSON.parse(text) as LoadOut;
}

const barePort = freePort();
const bare = Bun.spawn([process.execPath, import.meta.path, "--bare", String(barePort)], { stdout: "pipe", stderr: "inherit" });
await readUntil(bare.stdout, /ready/, 10_000);

/** One run of Frameline under load: what a row of the table says, and what the JSON keeps. */
interface FramelineRun {
  out: LoadOut;
  warm: LoadOut;
  rows: number;
  spooledRows: number;
  cpuByThread: Map<string, number>;
  stealPct: number | undefined;
}

/**
 * Starts `npm start`'s entry on a fresh DATA_DIR (with `env` on top), seeds 500 player
 * sessions, warms up, loads `POST /v1/event` for SECONDS, reads how many rows this process
 * put in the spool (from its /metrics: none while ClickHouse is healthy), stops it
 * (SIGTERM drains the batchers) and counts the custom events ClickHouse holds.
 */
async function runFrameline(env: Record<string, string>, countRows: (dataDir: string) => Promise<number>): Promise<FramelineRun> {
  const dataDir = await mkdtemp(join(tmpdir(), "frameline-ingest-bench-"));
  const port = freePort();
  const server = Bun.spawn(
    [process.execPath, ...(process.env.BENCH_SERVER_FLAGS ? process.env.BENCH_SERVER_FLAGS.split(" ") : []), join(ROOT, "server", "main.ts")],
    {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: String(port),
        LOG_LEVEL: "warn",
        DATABASE_URL: process.env.BENCH_DATABASE_URL ?? "",
        CLICKHOUSE_URL: "",
        IN_PROCESS_WORKERS: "0",
        // The limiters stay on; only their ceilings are raised so the load is measured, not refused.
        EVENTS_RATE_LIMIT_PER_MINUTE: "1000000000",
        EVENTS_RATE_LIMIT_PER_IP_PER_MINUTE: "1000000000",
        ...env,
      },
      stdout: "pipe",
      stderr: "inherit",
    },
  );
  let serverStopped = false;
  try {
    const banner = await readUntil(server.stdout, /FRAMELINE_TOKEN=(\S+)/, 90_000);
    const token = /FRAMELINE_TOKEN=(\S+)/.exec(banner)![1]!;
    const url = `http://127.0.0.1:${port}`;
    const auth = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };

    // Known viewers: a video, 500 player sessions with devices (as the player would create them).
    const created = await fetch(`${url}/api/v1/videos`, { method: "POST", headers: auth, body: JSON.stringify({ title: "Bench" }) });
    const videoCode = ((await created.json()) as { video: { code: string } }).video.code;
    const workspaceCode = await workspaceCodeOf(url, dataDir);
    const sessions = Array.from({ length: 500 }, (_, i) => `bench-session-${i}`);
    for (let i = 0; i < sessions.length; i += 50) {
      await Promise.all(
        sessions.slice(i, i + 50).map((session, j) =>
          fetch(`${url}/v1/collect`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({
              workspace_code: workspaceCode,
              video_code: videoCode,
              session_id: session,
              device_id: `bench-device-${i + j}`,
              events: [{ type: "play", video_time: 0 }],
            }),
          }).then((r) => r.text()),
        ),
      );
    }

    const spec = (seconds: number): LoadSpec => ({
      url: `${url}/v1/event`,
      token,
      seconds,
      connections: CONNECTIONS,
      sessions,
      videoCode,
      run: crypto.randomUUID().slice(0, 8),
    });
    const warm = await load(spec(2));
    const threadsBefore = await threadCpu(server.pid);
    const steal = await stealMeter();
    // Read again when the POST window ends: the health checks of the tail are not events.
    const atCut = Bun.sleep(SECONDS * 1000).then(() => threadCpu(server.pid));
    const out = await load(spec(SECONDS));
    const threadsAfter = await atCut;
    const stealPct = await steal();
    // Server CPU by thread name (main JS thread, chDB's pools, the embedded Postgres worker).
    const cpuByThread = new Map<string, number>();
    for (const [tid, { name, seconds }] of threadsAfter) cpuByThread.set(name, (cpuByThread.get(name) ?? 0) + seconds - (threadsBefore.get(tid)?.seconds ?? 0));
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const spooledRows = [...metrics.matchAll(/^frameline_ingest_spooled_rows_total\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);

    server.kill("SIGTERM");
    await server.exited;
    serverStopped = true;
    return { out, warm, rows: await countRows(dataDir), spooledRows, cpuByThread, stealPct };
  } finally {
    if (!serverStopped) {
      server.kill("SIGTERM");
      await server.exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Counts in the stopped server's own chDB, from a separate process (chDB allows one per data directory). */
async function countEmbedded(dataDir: string): Promise<number> {
  const counter = Bun.spawn([process.execPath, import.meta.path, "--count", join(dataDir, "clickhouse")], { stdout: "pipe", stderr: "inherit" });
  const rows = Number(await new Response(counter.stdout).text());
  await counter.exited;
  return rows;
}

/**
 * The ClickHouse server row: Frameline with CLICKHOUSE_URL, which sends its INSERTs with
 * `async_insert=1, wait_for_async_insert=1`, against the ClickHouse HTTP fixture of the tests
 * (chDB behind ClickHouse's HTTP interface, `npm run clickhouse:dev`). The fixture answers one
 * request at a time and has no async-insert queue of its own (its header says so), so this row
 * measures Frameline's server path over HTTP, not a ClickHouse server's throughput.
 */
async function withClickHouseFixture<T>(run: (chUrl: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "frameline-ingest-ch-"));
  const fixture = Bun.spawn(
    [process.execPath, "--max-http-header-size=1048576", join(ROOT, "test", "helpers", "clickhouse-http.ts"), "--port", "0", "--path", join(dir, "data")],
    { stdout: "pipe", stderr: "inherit" },
  );
  try {
    const banner = await readUntil(fixture.stdout, /ClickHouse HTTP on (http:\/\/\S+)/, 60_000);
    return await run(/ClickHouse HTTP on (http:\/\/\S+)/.exec(banner)![1]!);
  } finally {
    fixture.kill("SIGTERM");
    await fixture.exited;
    await rm(dir, { recursive: true, force: true });
  }
}

/** Custom events in the fixture's database (the server's default one). */
async function countOverHttp(chUrl: string): Promise<number> {
  const query = "SELECT count() FROM events WHERE event_type = 'custom' FORMAT TabSeparated";
  return Number((await (await fetch(`${chUrl}/?query=${encodeURIComponent(query)}`)).text()).trim());
}

try {
  // Warm-up of the baseline, then the measured runs: bare first, then Frameline embedded (group
  // commit into chDB), then Frameline on a ClickHouse server's HTTP interface (async_insert).
  await load({ url: `http://127.0.0.1:${barePort}/`, token: "", seconds: 1, connections: CONNECTIONS, sessions: ["s"], videoCode: "", run: "warm" });
  const b = await load({
    url: `http://127.0.0.1:${barePort}/`,
    token: "",
    seconds: SECONDS,
    connections: CONNECTIONS,
    sessions: ["s"],
    videoCode: "",
    run: "bare",
  });
  const embedded = await runFrameline({}, countEmbedded);
  const server = await withClickHouseFixture((chUrl) => runFrameline({ CLICKHOUSE_URL: chUrl }, () => countOverHttp(chUrl)));

  const o = embedded.out;
  const eps = o.ok2xx / o.seconds;
  const bareEps = b.ok2xx / b.seconds;
  const ratio = eps / bareEps;
  const serverEps = server.out.ok2xx / server.out.seconds;
  const allRowsLanded = (r: FramelineRun) => r.rows === r.warm.ok2xx + r.out.ok2xx;
  const perEvent = (seconds: number) => Math.round((seconds * 1e6) / o.ok2xx);
  const met = ratio >= 0.5 && eps >= 20_000 && allRowsLanded(embedded) && allRowsLanded(server);
  const row = (target: string, r: LoadOut, eventsPerSecond: number, run?: FramelineRun) => ({
    target,
    "events/s": Math.round(eventsPerSecond),
    "p50 ms": r.p50Ms,
    "p99 ms": r.p99Ms,
    "2xx": r.ok2xx,
    "non-2xx": r.non2xx,
    failed: r.failed,
    "rows = 2xx": run ? (allRowsLanded(run) ? "yes" : `no (${run.rows})`) : "",
    spooled: run ? run.spooledRows : "",
  });
  const blank = { "p50 ms": "", "p99 ms": "", "2xx": "", "non-2xx": "", failed: "", "rows = 2xx": "", spooled: "" };
  await report(
    "ingest",
    `POST /v1/event (token, realistic bodies, acknowledged after the ClickHouse write) vs bare Bun.serve parsing the same JSON — ${GENERATOR}, ${CONNECTIONS} connections, ${SECONDS}s each`,
    [
      row("Frameline POST /v1/event, embedded chDB (group commit)", o, eps, embedded),
      row("Frameline POST /v1/event, CLICKHOUSE_URL (async_insert, HTTP fixture)", server.out, serverEps, server),
      row("bare Bun.serve, same JSON", b, bareEps),
      { target: "ratio (embedded / bare)", "events/s": `${ratio.toFixed(2)}x`, ...blank },
      { target: "ratio (CLICKHOUSE_URL / bare)", "events/s": `${(serverEps / bareEps).toFixed(2)}x`, ...blank },
    ],
    {
      ratio: Number(ratio.toFixed(3)),
      events_per_second: Math.round(eps),
      clickhouse_url_events_per_second: Math.round(serverEps),
      // CPU of the POST window (the tail's health checks excluded), merges ClickHouse runs meanwhile included.
      server_cpu_us_per_event: perEvent([...embedded.cpuByThread.values()].reduce((a, c) => a + c, 0)),
      server_cpu_us_per_event_by_thread: Object.fromEntries(
        [...embedded.cpuByThread]
          .sort((a, c) => c[1] - a[1])
          .slice(0, 6)
          .map(([name, seconds]) => [name, perEvent(seconds)]),
      ),
      // CPU the hypervisor took from this machine during our run (a shared host drifts).
      machine_steal_pct: embedded.stealPct ?? null,
      clickhouse_rows: embedded.rows,
      clickhouse_url_rows: server.rows,
      // The spool holds only what ClickHouse did not take: with ClickHouse healthy it stays empty.
      spooled_rows: embedded.spooledRows + server.spooledRows,
      rows_equal_2xx: allRowsLanded(embedded) && allRowsLanded(server),
      target: "ratio >= 0.5, >= 20000 events/s, rows == 2xx",
      met,
      generator: GENERATOR,
      connections: CONNECTIONS,
    },
  );
} finally {
  bare.kill();
  await bare.exited;
}

/** CPU seconds (user + system) each thread of a process has used so far, from Linux's /proc (empty elsewhere). */
async function threadCpu(pid: number): Promise<Map<string, { name: string; seconds: number }>> {
  const out = new Map<string, { name: string; seconds: number }>();
  const tids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  for (const tid of tids) {
    const stat = await Bun.file(`/proc/${pid}/task/${tid}/stat`)
      .text()
      .catch(() => "");
    if (!stat) continue;
    const name = tid === String(pid) ? "main (JS)" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
    out.set(tid, { name, seconds: (Number(fields[11]) + Number(fields[12])) / 100 });
  }
  return out;
}

/** The Default workspace's code, read through the operator API with the generated admin key. */
async function workspaceCodeOf(url: string, dir: string): Promise<string> {
  const adminKey = (await Bun.file(join(dir, "admin.key")).text()).trim();
  const res = await fetch(`${url}/admin/v1/workspaces`, { headers: { Authorization: `Bearer ${adminKey}` } });
  return ((await res.json()) as { workspaces: { code: string }[] }).workspaces[0]!.code;
}
