/**
 * README "Probes and metrics": `/health` is liveness, `/ready` answers 200 only while
 * PostgreSQL, ClickHouse and the media store each answer (503 naming the one that does
 * not), and `/metrics` is the Prometheus text whose series move as requests, events and
 * jobs happen, behind METRICS_TOKEN when it is set.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { writeFile } from "node:fs/promises";
import { createClient } from "@clickhouse/client";
import parsePrometheusTextFormat, { type MetricFamily } from "parse-prometheus-text-format";
import { appAndWorkspace, testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { getEngines } from "../helpers/engines.ts";
import { createFsBlobStore } from "../../server/storage/blob/index.ts";
import { processNextExport } from "../../server/workers/export-builder.ts";
import { CHECK_TIMEOUT_MS, READY_CACHE_MS } from "../../server/hosts/probes/service.ts";

let t: TestApp;
let ws: TestWorkspace;
const dead = createClient({ url: "http://127.0.0.1:1", request_timeout: 2000 });
const others: TestApp[] = [];

beforeAll(async () => {
  ({ t, ws } = await appAndWorkspace());
}, 60_000);

afterAll(async () => {
  for (const other of others) await other.deps.close();
  await dead.close();
  // What the app over the dead ClickHouse spooled goes in now, so no later file finds it waiting.
  await t.deps.ingest.spool.drain();
});

interface Scrape {
  families: MetricFamily[];
  text: string;
}

async function scrape(app: TestApp = t, token?: string): Promise<Scrape> {
  const res = await app.call("GET", "/metrics", { token });
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  return { families: parsePrometheusTextFormat(res.text), text: res.text };
}

const matches = (labels: Record<string, string>, wanted: Record<string, string>) => Object.entries(wanted).every(([key, value]) => labels[key] === value);

/** The counter or gauge `name` whose labels include `labels`, or undefined when there is none. */
function sample({ families }: Scrape, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = families.find((f) => f.name === name)?.metrics.find((m) => matches(m.labels ?? {}, labels));
  return found?.value === undefined ? undefined : Number(found.value);
}

const at = (scraped: Scrape, name: string, labels: Record<string, string> = {}) => sample(scraped, name, labels) ?? 0;

/**
 * Observations of the histogram `name` whose labels include `labels`. Read from the text: the
 * parser merges a histogram's labelled series into one and keeps no `_count` of any.
 */
function observations({ text }: Scrape, name: string, labels: Record<string, string>): number {
  for (const line of text.split("\n")) {
    const match = /^(\w+)\{(.*)\} (\S+)$/.exec(line);
    if (match?.[1] !== `${name}_count`) continue;
    const own = Object.fromEntries([...match[2]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, value]) => [key!, value!]));
    if (matches(own, labels)) return Number(match[3]);
  }
  return 0;
}

describe("/health", () => {
  test("is liveness: {ok: true}", async () => {
    const res = await t.call("GET", "/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });
});

describe("/ready", () => {
  test("is 200 while every engine answers, with the spool's depth", async () => {
    const res = await t.call("GET", "/ready");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body).toEqual({
      ready: true,
      checks: { postgres: "ok", clickhouse: "ok", blobs: "ok" },
      spool: { batches: expect.any(Number), rows: expect.any(Number), refused: expect.any(Number) },
    });
  });

  test("is 503 naming ClickHouse when it does not answer; events meanwhile go to the spool, which it counts", async () => {
    const outage = await testApp({ ch: dead });
    others.push(outage);
    const sent = await outage.call("POST", "/v1/event", { token: ws.token, body: { event: "during_outage" } });
    expect(sent.status).toBe(202);
    const res = await outage.call("GET", "/ready");
    expect(res.status).toBe(503);
    expect(res.body.ready).toBe(false);
    expect(res.body.checks).toEqual({ postgres: "ok", clickhouse: "unreachable: ECONNREFUSED", blobs: "ok" });
    expect(res.body.spool.batches).toBeGreaterThanOrEqual(1);
    expect(res.body.spool.rows).toBeGreaterThanOrEqual(1);

    const families = await scrape(outage);
    expect(at(families, "frameline_ingest_spooled_batches_total", { table: "events" })).toBe(1);
    expect(at(families, "frameline_ingest_spooled_rows_total", { table: "events" })).toBe(1);
    expect(at(families, "frameline_ingest_insert_failures_total", { table: "events", outcome: "spooled" })).toBe(1);
    expect(at(families, "frameline_ingest_rows_total", { table: "events" })).toBe(0);
    expect(at(families, "frameline_ingest_spool_batches")).toBeGreaterThanOrEqual(1);

    // ClickHouse answers again: a process whose ClickHouse answers replays the batch, and counts it.
    const before = at(await scrape(), "frameline_ingest_replayed_rows_total", { table: "events" });
    await t.deps.ingest.spool.drain();
    expect(at(await scrape(), "frameline_ingest_replayed_rows_total", { table: "events" })).toBeGreaterThanOrEqual(before + 1);
  }, 30_000);

  test("is 503 naming the media store when it fails", async () => {
    // A store whose root lies under a file: every call on it fails, as on a lost volume.
    const file = join((await getEngines()).tmp, `not-a-directory-${crypto.randomUUID()}`);
    await writeFile(file, "");
    const broken = await testApp({ media: createFsBlobStore(join(file, "media")) });
    others.push(broken);
    const res = await broken.call("GET", "/ready");
    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({ postgres: "ok", clickhouse: "ok", blobs: "error: ENOTDIR" });
  });

  test("answers within the check's time limit when an engine hangs, and asks the hung engine nothing more meanwhile", async () => {
    const store = createFsBlobStore(join((await getEngines()).tmp, `media-${crypto.randomUUID()}`));
    let calls = 0;
    const hung = await testApp({ media: { ...store, freeBytes: () => (calls++, new Promise<number>(() => {})) } });
    others.push(hung);
    const started = performance.now();
    const res = await hung.call("GET", "/ready");
    expect(performance.now() - started).toBeLessThan(CHECK_TIMEOUT_MS + 1_000);
    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({ postgres: "ok", clickhouse: "ok", blobs: "timeout" });
    await Bun.sleep(READY_CACHE_MS + 50);
    expect((await hung.call("GET", "/ready")).body.checks.blobs).toBe("timeout");
    expect(calls).toBe(1);
  }, 15_000);

  test("checks the engines once for a burst of probes, and again a second later", async () => {
    const store = createFsBlobStore(join((await getEngines()).tmp, `media-${crypto.randomUUID()}`));
    let checks = 0;
    const counted = await testApp({ media: { ...store, freeBytes: () => (checks++, store.freeBytes()) } });
    others.push(counted);
    const burst = await Promise.all(Array.from({ length: 5 }, () => counted.call("GET", "/ready")));
    expect(burst.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await counted.call("GET", "/ready")).status).toBe(200);
    expect(checks).toBe(1);
    await Bun.sleep(READY_CACHE_MS + 50);
    expect((await counted.call("GET", "/ready")).status).toBe(200);
    expect(checks).toBe(2);
  });
});

describe("/metrics", () => {
  test("counts requests by method, route pattern and status, never by raw URL", async () => {
    const video = await t.createVideo(ws);
    const route = { method: "GET", route: "/api/v1/videos/:video", status: "200" };
    const before = await scrape();
    const N = 5;
    for (let i = 0; i < N; i++) expect((await t.call("GET", `/api/v1/videos/${video.id}`, { token: ws.token })).status).toBe(200);
    await t.call("GET", `/no/such/path/${crypto.randomUUID()}`);
    await Bun.sleep(10); // the counts are taken after each answer is sent
    const after = await scrape();
    expect(at(after, "http_requests_total", route) - at(before, "http_requests_total", route)).toBe(N);
    expect(observations(after, "http_request_duration_seconds", route) - observations(before, "http_request_duration_seconds", route)).toBe(N);
    expect(at(after, "http_requests_total", { route: "unmatched", status: "404" })).toBeGreaterThanOrEqual(1);
    const routes = after.families.find((f) => f.name === "http_requests_total")!.metrics.map((m) => m.labels!.route!);
    expect(routes.filter((r) => /\/\d+(\/|$)/.test(r) || r.startsWith("/no/"))).toEqual([]);
    // prom-client's process metrics are on the app's own registry.
    expect(sample(after, "process_cpu_seconds_total")).toBeGreaterThan(0);
  });

  test("counts the event rows written to ClickHouse and their batches", async () => {
    const before = await scrape();
    const N = 4;
    for (let i = 0; i < N; i++)
      expect((await t.call("POST", "/v1/event", { token: ws.token, body: { event: "probed", properties: { i: String(i) } } })).status).toBe(202);
    const after = await scrape();
    expect(at(after, "frameline_ingest_rows_total", { table: "events" }) - at(before, "frameline_ingest_rows_total", { table: "events" })).toBe(N);
    const events = { table: "events" };
    expect(observations(after, "frameline_ingest_batch_rows", events)).toBeGreaterThan(observations(before, "frameline_ingest_batch_rows", events));
    expect(observations(after, "frameline_ingest_insert_duration_seconds", events)).toBeGreaterThan(
      observations(before, "frameline_ingest_insert_duration_seconds", events),
    );
  });

  test("reads the jobs waiting from PostgreSQL and counts the attempts this process ran", async () => {
    const video = await t.createVideo(ws);
    const day = new Date().toISOString().slice(0, 10);
    const before = await scrape();
    const created = await t.call("POST", "/api/v1/exports", {
      token: ws.token,
      body: { video_ids: [video.id], from: day, to: day, format: "csv", type: "summary" },
    });
    expect(created.status).toBe(202);
    const queued = await scrape();
    expect(at(queued, "frameline_jobs_queued", { kind: "export" })).toBe(at(before, "frameline_jobs_queued", { kind: "export" }) + 1);
    expect(sample(queued, "frameline_jobs_running", { kind: "encode" })).toBeNumber();
    expect(sample(queued, "frameline_webhook_backlog", { queue: "outbox" })).toBeNumber();

    for (let i = 0; i < 50 && (await processNextExport(t.deps)); i++);
    const read = await t.call("GET", `/api/v1/exports/${created.body.export_id}`, { token: ws.token });
    expect(read.body.status).toBe("ready");
    const done = await scrape();
    expect(at(done, "frameline_job_attempts_total", { kind: "export", outcome: "done" })).toBeGreaterThanOrEqual(
      at(before, "frameline_job_attempts_total", { kind: "export", outcome: "done" }) + 1,
    );
    expect(at(done, "frameline_jobs_queued", { kind: "export" })).toBeLessThan(at(queued, "frameline_jobs_queued", { kind: "export" }));
  }, 60_000);

  test("asks for METRICS_TOKEN when it is set: 401 in the API's error shape without it, 200 with it", async () => {
    const token = `mt_${crypto.randomUUID()}`;
    const guarded = await testApp({ config: { metricsToken: token } });
    others.push(guarded);
    const bare = await guarded.call("GET", "/metrics");
    expect(bare.status).toBe(401);
    expect(bare.body.error.code).toBe("AUTH_REQUIRED");
    const wrong = await guarded.call("GET", "/metrics", { token: `${token}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("INVALID_TOKEN");
    expect(sample(await scrape(guarded, token), "http_requests_total", { route: "/metrics", status: "401" })).toBe(2);
    // /ready stays open for load balancers.
    expect((await guarded.call("GET", "/ready")).status).toBe(200);
  });
});
