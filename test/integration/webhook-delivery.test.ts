/**
 * Live delivery through a real local receiver: signatures (checked by an
 * independent Standard Webhooks verifier), the retry schedule on an injected
 * clock, Retry-After, 410, auto-disable, timeouts, redirects, restart survival,
 * several deliverers sharing the work, and the connect-time SSRF refusal.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { getEngines } from "../helpers/engines.ts";
import { startReceiver, verifyStandardWebhook, type Receiver } from "../helpers/receiver.ts";
import { SPEC_EVENTS } from "../helpers/spec.ts";
import { connectPostgres } from "../../server/storage/postgres.ts";
import { enqueueEvent } from "../../server/storage/outbox.ts";
import { WebhookDeliverer, RETRY_SCHEDULE_MS } from "../../server/workers/webhook-deliverer.ts";
import * as repo from "../../server/api/webhooks/repo.ts";
import type { Deps } from "../../server/deps.ts";

let now = Date.parse("2026-03-01T12:00:00Z");
const clock = { now: () => now };
const advance = (ms: number) => (now += ms);

let t: TestApp;
let rx: Receiver;
const SECRET = "a-user-supplied-secret-0123456789";

beforeAll(async () => {
  t = await testApp({ clock, config: { webhookAllowPrivate: true, limits: { readsPerMinute: 100_000, writesPerMinute: 100_000 } } });
  rx = startReceiver();
}, 60_000);

afterAll(async () => {
  await rx.stop();
});

/** Workspaces of this file, so clean-up never touches another file's rows. */
const workspaces: number[] = [];
const workspace = async () => {
  const ws = await t.workspace();
  workspaces.push(ws.id);
  return ws;
};

afterEach(async () => {
  // Each test starts with no due work left behind by the previous one.
  await t.deps.sql`DELETE FROM webhook_subscriptions WHERE workspace_id = ANY (${t.deps.sql.array(workspaces)}::bigint[])`;
  rx.reset();
  rx.respond({ status: 200 });
});

/** A deliverer with a fixed jitter (factor exactly 1.0) so the schedule is exact. */
const deliverer = (deps: Deps = t.deps, options = {}) => new WebhookDeliverer(deps, { random: () => 0.5, ...options });

async function subscribe(ws: TestWorkspace, events: string[], extra: Record<string, unknown> = {}) {
  const res = await t.call("POST", "/api/v1/webhooks", { token: ws.token, body: { name: "hook", url: `${rx.url}/hook`, events, secret: SECRET, ...extra } });
  expect(res.status).toBe(201);
  return res.body.webhook as { id: number };
}

/** A new workspace with one subscription to `events`. */
async function subscribed(events: string[]) {
  const ws = await workspace();
  return { ws, sub: await subscribe(ws, events) };
}

const deliveriesOf = (subscriptionId: number) =>
  t.deps.sql`SELECT state, attempts, next_attempt_at, last_status, last_error FROM webhook_deliveries WHERE subscription_id = ${subscriptionId} ORDER BY id`;
const subscriptionRow = async (id: number) => (await t.deps.sql`SELECT is_active, failure_count FROM webhook_subscriptions WHERE id = ${id}`)[0]!;

describe("live delivery", () => {
  test("video.created and video.deleted arrive in the documented envelope, signed per Standard Webhooks; patch and duplicate fire nothing", async () => {
    const ws = await workspace();
    await subscribe(ws, ["video.created", "video.deleted"]);
    const created = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "Hooked" } });
    expect(created.status).toBe(201);
    const video = created.body.video;
    await deliverer().runUntilIdle();

    expect(rx.requests).toHaveLength(1);
    const [first] = rx.requests;
    const [outbox] = await t.deps.sql`SELECT event_id, created_at FROM outbox WHERE workspace_id = ${ws.id} AND event = 'video.created'`;
    expect(first!.json).toEqual({
      id: outbox!.event_id,
      event: "video.created",
      workspace_id: ws.id,
      created_at: outbox!.created_at.toISOString(),
      data: { video: { id: video.id, code: video.code, title: "Hooked" } },
    });
    expect(first!.headers["content-type"]).toStartWith("application/json");
    expect(first!.headers["webhook-id"]).toBe(outbox!.event_id);
    expect(first!.headers["webhook-timestamp"]).toBe(String(Math.floor(now / 1000)));
    expect(await verifyStandardWebhook(SECRET, first!.headers, first!.body, Math.floor(now / 1000))).toBe(true);
    // A tampered body or another secret fails the same check.
    expect(await verifyStandardWebhook(SECRET, first!.headers, first!.body.replace("Hooked", "Hacked"), Math.floor(now / 1000))).toBe(false);
    expect(await verifyStandardWebhook(SECRET + "x", first!.headers, first!.body, Math.floor(now / 1000))).toBe(false);

    expect((await t.call("PATCH", `/api/v1/videos/${video.id}`, { token: ws.token, body: { title: "Renamed" } })).status).toBe(200);
    expect((await t.call("POST", `/api/v1/videos/${video.id}/duplicate`, { token: ws.token })).status).toBe(201);
    expect((await t.call("DELETE", `/api/v1/videos/${video.id}`, { token: ws.token })).status).toBe(200);
    await deliverer().runUntilIdle();
    expect(rx.requests.map((r) => r.json.event)).toEqual(["video.created", "video.deleted"]);
    expect(rx.requests[1]!.json.data).toEqual({ video_id: video.id });
    expect(await verifyStandardWebhook(SECRET, rx.requests[1]!.headers, rx.requests[1]!.body, Math.floor(now / 1000))).toBe(true);
  });

  test("a whsec_ secret is keyed by its base64-decoded bytes (what Standard Webhooks libraries expect)", async () => {
    const ws = await workspace();
    const secret = "whsec_" + Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64");
    await subscribe(ws, ["lead.captured"], { secret });
    await enqueueEvent(t.deps.sql, ws.id, "lead.captured", { video_code: "v", identity: { email: "a@b.co", first_name: "A" } });
    await deliverer().runUntilIdle();
    expect(rx.requests).toHaveLength(1);
    expect(await verifyStandardWebhook(secret, rx.requests[0]!.headers, rx.requests[0]!.body, Math.floor(now / 1000))).toBe(true);
  });

  test("only active subscriptions of the event's own workspace that asked for the event receive it", async () => {
    const a = await workspace();
    const b = await workspace();
    const wanted = await subscribe(a, ["conversion.created"]);
    await subscribe(a, ["video.created"]); // other event
    await subscribe(b, ["conversion.created"]); // other workspace
    const inactive = await subscribe(a, ["conversion.created"]);
    await t.deps.sql`UPDATE webhook_subscriptions SET is_active = false WHERE id = ${inactive.id}`;
    const eventId = await enqueueEvent(t.deps.sql, a.id, "conversion.created", { order_id: "o-1" });
    await deliverer().runUntilIdle();
    expect(rx.requests.map((r) => r.headers["webhook-id"])).toEqual([eventId]);
    expect(rx.requests[0]!.json.workspace_id).toBe(a.id);
    expect((await deliveriesOf(wanted.id)).map((d) => d.state)).toEqual(["delivered"]);
    expect(await deliveriesOf(inactive.id)).toHaveLength(0);
  });
});

describe("retries", () => {
  test("the schedule is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; the 8th failure disables the subscription", async () => {
    const { ws, sub } = await subscribed(["video.uploaded"]);
    rx.respond({ status: 500 });
    const eventId = await enqueueEvent(t.deps.sql, ws.id, "video.uploaded", { video_id: 1 });
    const d = deliverer();
    await d.runUntilIdle();
    expect(rx.requests).toHaveLength(1);

    for (const [i, delay] of RETRY_SCHEDULE_MS.entries()) {
      const [row] = await deliveriesOf(sub.id);
      expect(row!.state).toBe("pending");
      expect(row!.attempts).toBe(i + 1);
      expect(row!.next_attempt_at.getTime()).toBe(now + delay);
      expect((await subscriptionRow(sub.id)).failure_count).toBe(i + 1);
      advance(delay - 1000); // not yet due
      await d.runUntilIdle();
      expect(rx.requests).toHaveLength(i + 1);
      advance(1000);
      await d.runUntilIdle();
      expect(rx.requests).toHaveLength(i + 2);
    }
    // Every attempt is the same message (same webhook-id), freshly timestamped and signed.
    expect(new Set(rx.requests.map((r) => r.headers["webhook-id"]))).toEqual(new Set([eventId]));
    expect(new Set(rx.requests.map((r) => r.headers["webhook-timestamp"])).size).toBe(8);
    const [last] = await deliveriesOf(sub.id);
    expect(last).toMatchObject({ state: "failed", attempts: 8, last_status: 500 });
    expect(await subscriptionRow(sub.id)).toEqual({ is_active: false, failure_count: 8 });
    const listed = await t.call("GET", "/api/v1/webhooks", { token: ws.token });
    expect(listed.body.webhooks[0]).toMatchObject({ id: sub.id, is_active: false, failure_count: 8 });
    // Nothing more is attempted, and new events no longer fan out to it.
    await enqueueEvent(t.deps.sql, ws.id, "video.uploaded", { video_id: 2 });
    advance(48 * 3_600_000);
    await d.runUntilIdle();
    expect(rx.requests).toHaveLength(8);
  });

  test("jitter keeps each retry within 10% of the schedule", async () => {
    const { ws, sub } = await subscribed(["play"]);
    rx.respond({ status: 503 });
    for (const random of [0, 0.999]) {
      await enqueueEvent(t.deps.sql, ws.id, "play", { n: random });
      await deliverer(t.deps, { random: () => random }).runUntilIdle();
    }
    const rows = await deliveriesOf(sub.id);
    const delays = rows.map((r) => r.next_attempt_at.getTime() - now);
    expect(delays[0]).toBe(4500);
    expect(delays[1]).toBeGreaterThan(5400);
    expect(delays[1]).toBeLessThanOrEqual(5500);
  });

  test("a success resets failure_count; a later Retry-After wins over the schedule", async () => {
    const { ws, sub } = await subscribed(["cta.clicked"]);
    const d = deliverer();
    rx.respond({ status: 429, headers: { "Retry-After": "120" } });
    await enqueueEvent(t.deps.sql, ws.id, "cta.clicked", { label: "Buy" });
    await d.runUntilIdle();
    let [row] = await deliveriesOf(sub.id);
    expect(row!.next_attempt_at.getTime()).toBe(now + 120_000);
    expect(row!.last_status).toBe(429);
    advance(60_000);
    await d.runUntilIdle();
    expect(rx.requests).toHaveLength(1); // 5 s passed long ago, but Retry-After said 120 s

    advance(60_000);
    rx.respond({ status: 503, headers: { "Retry-After": new Date(now + 600_000).toUTCString() } });
    await d.runUntilIdle();
    expect(rx.requests).toHaveLength(2);
    [row] = await deliveriesOf(sub.id);
    expect(Math.abs(row!.next_attempt_at.getTime() - (now + 600_000))).toBeLessThan(1000); // HTTP-date form
    expect((await subscriptionRow(sub.id)).failure_count).toBe(2);

    rx.respond({ status: 204 });
    advance(600_000);
    await d.runUntilIdle();
    [row] = await deliveriesOf(sub.id);
    expect(row).toMatchObject({ state: "delivered", attempts: 3, last_status: 204 });
    expect(await subscriptionRow(sub.id)).toEqual({ is_active: true, failure_count: 0 });
  });

  test("410 Gone disables the subscription at once and cancels its other pending deliveries", async () => {
    const { ws, sub } = await subscribed(["ended"]);
    rx.respond({ status: 500 });
    await enqueueEvent(t.deps.sql, ws.id, "ended", { n: 1 });
    const d = deliverer();
    await d.runUntilIdle();
    rx.respond({ status: 410 });
    await enqueueEvent(t.deps.sql, ws.id, "ended", { n: 2 });
    await d.runUntilIdle();
    expect(rx.requests).toHaveLength(2);
    expect(await subscriptionRow(sub.id)).toEqual({ is_active: false, failure_count: 2 });
    expect((await deliveriesOf(sub.id)).map((r) => r.state).sort()).toEqual(["cancelled", "failed"]);
    advance(3_600_000);
    await d.runUntilIdle();
    expect(rx.requests).toHaveLength(2);
  });

  test("an attempt times out, a redirect is not followed, a refused connection fails: each is retried", async () => {
    const { ws, sub } = await subscribed(["quiz.answered"]);
    const d = deliverer(t.deps, { timeoutMs: 300 });
    rx.respond({ status: 200, delayMs: 1500 });
    await enqueueEvent(t.deps.sql, ws.id, "quiz.answered", { q: 1 });
    await d.runUntilIdle();
    let [row] = await deliveriesOf(sub.id);
    expect(row).toMatchObject({ state: "pending", attempts: 1 });
    expect(row!.last_error).toContain("timed out");

    rx.respond((r) => (r.path === "/hook" ? { status: 302, headers: { Location: `${rx.url}/elsewhere` } } : { status: 200 }));
    advance(5000);
    await d.runUntilIdle();
    [row] = await deliveriesOf(sub.id);
    expect(row).toMatchObject({ state: "pending", attempts: 2, last_status: 302 });
    expect(rx.requests.filter((r) => r.path === "/elsewhere")).toHaveLength(0);

    await t.deps.sql`UPDATE webhook_subscriptions SET url = 'http://127.0.0.1:9/hook' WHERE id = ${sub.id}`;
    advance(300_000);
    await d.runUntilIdle();
    [row] = await deliveriesOf(sub.id);
    expect(row).toMatchObject({ state: "pending", attempts: 3, last_status: null });
    expect(row!.last_error).toContain("could not connect");
    expect((await subscriptionRow(sub.id)).failure_count).toBe(3);
  });

  test("only the first few KB of an answer are read: an endless body does not hold the attempt", async () => {
    const { ws, sub } = await subscribed(["playlist.ended"]);
    rx.respond({ status: 200, endless: true });
    await enqueueEvent(t.deps.sql, ws.id, "playlist.ended", { n: 1 });
    const started = performance.now();
    await deliverer(t.deps, { timeoutMs: 3000 }).runUntilIdle();
    expect(performance.now() - started).toBeLessThan(2000);
    expect((await deliveriesOf(sub.id)).map((r) => [r.state, r.last_status])).toEqual([["delivered", 200]]);
  });
});

describe("durability and sharing", () => {
  test("a delivery survives a restart, and one claimed by a process that died is taken over after its lease", async () => {
    const { ws, sub } = await subscribed(["lesson.completed"]);
    rx.respond({ status: 500 });
    const first = await enqueueEvent(t.deps.sql, ws.id, "lesson.completed", { lesson: 1 });
    await deliverer().runUntilIdle(); // failed once, pending in the database

    // A "dead" process claims the second event's delivery and never finishes it.
    const second = await enqueueEvent(t.deps.sql, ws.id, "lesson.completed", { lesson: 2 });
    const { claimed } = await repo.fanOutAndClaim(t.deps.sql, 100, new Date(now), new Date(now + 60_000));
    expect(claimed.map((c) => c.event_id)).toEqual([second]);

    // "Restart": a new process with its own connection pool and deliverer.
    const engines = await getEngines();
    const pool = connectPostgres(engines.databaseUrl, { max: 4 });
    try {
      rx.respond({ status: 200 });
      const restarted = deliverer({ ...t.deps, sql: pool });
      advance(5000);
      await restarted.runUntilIdle();
      expect(rx.requests.map((r) => r.headers["webhook-id"])).toEqual([first, first]); // the leased one is not touched yet
      advance(55_000);
      await restarted.runUntilIdle();
      expect(rx.requests.map((r) => r.headers["webhook-id"])).toEqual([first, first, second]);
      expect((await deliveriesOf(sub.id)).map((r) => [r.state, r.attempts])).toEqual([
        ["delivered", 2],
        ["delivered", 2],
      ]);
    } finally {
      await pool.end({ timeout: 5 });
    }
  });

  test("two deliverers on separate pools share 300 events with none lost and none duplicated", async () => {
    const ws = await workspace();
    await subscribe(ws, ["play.milestone"]);
    const ids = new Set<string>();
    await t.deps.sql.begin(async (tx) => {
      for (let i = 0; i < 300; i++) ids.add(await enqueueEvent(tx, ws.id, "play.milestone", { percent: [25, 50, 75, 100][i % 4], i }));
    });
    const engines = await getEngines();
    const pools = [connectPostgres(engines.databaseUrl, { max: 4 }), connectPostgres(engines.databaseUrl, { max: 4 })];
    try {
      const results = await Promise.all(pools.map((sql) => deliverer({ ...t.deps, sql }, { concurrency: 8, fanOutBatch: 50 }).runUntilIdle()));
      expect(results[0]!.delivered + results[1]!.delivered).toBe(300);
      expect(rx.ids).toEqual(ids);
      expect(rx.duplicates()).toBe(0);
      expect(rx.requests).toHaveLength(300);
    } finally {
      await Promise.all(pools.map((p) => p.end({ timeout: 5 })));
    }
  });

  test("the background loop delivers on its own and stop() waits for the attempt in flight", async () => {
    const { ws, sub } = await subscribed(["video.created"]);
    rx.respond({ status: 200, delayMs: 400 });
    const d = deliverer(t.deps, { pollMs: 20 }).start();
    try {
      await enqueueEvent(t.deps.sql, ws.id, "video.created", { video: { id: 1 } });
      await rx.waitFor(1, 5000);
    } finally {
      await d.stop(); // the receiver is still sleeping: stop must wait and record the outcome
    }
    expect((await deliveriesOf(sub.id)).map((r) => r.state)).toEqual(["delivered"]);
  });
});

describe("housekeeping", () => {
  test("finished deliveries and dispatched outbox rows older than the cut-off go; pending ones stay", async () => {
    const { ws, sub } = await subscribed(["ended"]);
    rx.respond((r) => (r.json?.data?.n === 2 ? { status: 500 } : { status: 200 }));
    const done = await enqueueEvent(t.deps.sql, ws.id, "ended", { n: 1 });
    const pending = await enqueueEvent(t.deps.sql, ws.id, "ended", { n: 2 });
    await deliverer().runUntilIdle();
    advance(8 * 24 * 3_600_000);
    await repo.pruneFinished(t.deps.sql, new Date(now - 7 * 24 * 3_600_000));
    const left = await t.deps.sql`SELECT o.event_id, d.state FROM webhook_deliveries d JOIN outbox o ON o.id = d.outbox_id WHERE d.subscription_id = ${sub.id}`;
    expect(left.map((r) => [r.event_id, r.state])).toEqual([[pending, "pending"]]);
    expect(await t.deps.sql`SELECT 1 FROM outbox WHERE event_id = ${done}`).toHaveLength(0);
  });
});

describe("end to end through the real routes", () => {
  test("every event the service writes today reaches a subscriber of all events, each signed", async () => {
    const ws = await workspace();
    await subscribe(ws, SPEC_EVENTS);
    const video = await t.createVideo(ws, { title: "E2E" });

    // A real one-second clip, uploaded in one request (the encoder is not running here).
    const clip = `${(await getEngines()).tmp}/e2e-${video.id}.mp4`;
    const ff = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=1:size=64x64:rate=10", "-pix_fmt", "yuv420p", clip]);
    expect(ff.exitCode).toBe(0);
    const uploaded = await t.upload(ws, video.id, clip);
    expect(uploaded.status).toBe(202);

    expect((await t.call("POST", `/api/v1/videos/${video.id}/deploy`, { token: ws.token, body: {} })).status).toBe(200);
    expect(
      (await t.call("POST", "/api/v1/conversions", { token: ws.token, body: { video_code: video.code, conversion_value: 10, conversion_currency: "USD" } }))
        .status,
    ).toBe(201);
    const collected = await t.call("POST", "/v1/collect", {
      body: {
        workspace_code: ws.code,
        video_code: video.code,
        session_id: "sess-e2e-1",
        events: [
          { type: "play", video_time: 0 },
          { type: "milestone", percent: 25, video_time: 1 },
          { type: "cta_click", video_time: 1 },
          { type: "lesson_completed" },
          { type: "playlist_ended" },
          { type: "quiz_answered" },
          { type: "lead_form_submitted", email: "lead@example.com" },
          { type: "ended", video_time: 4 },
        ],
      },
    });
    expect(collected.status).toBeLessThan(300);
    expect((await t.call("DELETE", `/api/v1/videos/${video.id}`, { token: ws.token })).status).toBe(200);

    await deliverer().runUntilIdle();
    const events = rx.requests.map((r) => r.json.event);
    for (const event of [
      "video.created",
      "video.uploaded",
      "video.settings.deployed",
      "conversion",
      "conversion.created",
      "video.viewed",
      "play",
      "play.milestone",
      "cta.clicked",
      "lesson.completed",
      "playlist.ended",
      "quiz.answered",
      "lead_form.submitted",
      "lead.captured",
      "ended",
      "video.deleted",
    ])
      expect(events, event).toContain(event);
    for (const r of rx.requests) {
      expect(r.json.workspace_id).toBe(ws.id);
      expect(r.headers["webhook-id"]).toBe(r.json.id);
      expect(await verifyStandardWebhook(SECRET, r.headers, r.body, Math.floor(now / 1000))).toBe(true);
    }
    expect(rx.duplicates()).toBe(0);
  });
});

describe("connect-time SSRF refusal", () => {
  test("with private targets disallowed, a stored loopback URL is re-resolved and never connected to", async () => {
    const { ws, sub } = await subscribed(["split_test.winner_declared"]);
    // e.g. a host that resolved publicly at subscribe time and now points at loopback (rebinding).
    await t.deps.sql`UPDATE webhook_subscriptions SET url = ${`http://localhost:${rx.port}/hook`} WHERE id = ${sub.id}`;
    const strict: Deps = { ...t.deps, config: { ...t.deps.config, webhookAllowPrivate: false } };
    await enqueueEvent(t.deps.sql, ws.id, "split_test.winner_declared", { winner: "b" });
    await deliverer(strict).runUntilIdle();
    expect(rx.requests).toHaveLength(0);
    const [row] = await deliveriesOf(sub.id);
    expect(row).toMatchObject({ state: "pending", attempts: 1 });
    expect(row!.last_error).toContain("refused");
    expect(row!.last_error).toContain("127.0.0.1");
  });
});
