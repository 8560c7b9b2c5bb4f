import { beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { ADMIN_KEY, caller, testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { loadConfig } from "../../server/config.ts";
import { createApp } from "../../server/app.ts";
import { createDeps } from "../../server/runtime.ts";
import { connectPostgres } from "../../server/storage/postgres.ts";
import { getEngines } from "../helpers/engines.ts";

let t: TestApp;
let ws: TestWorkspace;
let video: { id: number; code: string };
const ip = () => `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

async function chConversions(workspaceId: number): Promise<any[]> {
  const result = await t.deps.ch.query({
    query:
      "SELECT event_type, event, event_id, value, session_code, video_code, properties FROM events WHERE workspace_id = {w:UInt64} AND event_type = 'conversion' ORDER BY event_id",
    query_params: { w: workspaceId },
    format: "JSONEachRow",
  });
  return result.json();
}
const ledger = (workspaceId: number) =>
  t.deps
    .sql`SELECT dedup_key, verified, conversion_source, value::float AS value, currency, session_code, video_code FROM conversions WHERE workspace_id = ${workspaceId} ORDER BY id`;
const outboxCount = async (workspaceId: number, event: string) =>
  (await t.deps.sql`SELECT count(*)::int AS n FROM outbox WHERE workspace_id = ${workspaceId} AND event = ${event}`)[0]!.n as number;
const s2s = (body: Record<string, unknown>, opts: { token?: string; key?: string } = {}) =>
  t.call("POST", "/api/v1/conversions", { token: opts.token ?? ws.token, body, headers: opts.key ? { "Idempotency-Key": opts.key } : {} });
const browser = (body: Record<string, unknown>, w = ws, addr = ip()) =>
  t.call("POST", "/v1/conversion", { body: { workspace_code: w.code, ...body }, headers: { "X-Forwarded-For": addr, Origin: "https://shop.example" } });

const newVideo = (w: TestWorkspace) => t.createVideo(w, { title: "Sales page" });
async function session(w: TestWorkspace, v: { code: string }) {
  const id = "s-" + crypto.randomUUID();
  const res = await t.call("POST", "/v1/collect", {
    body: { workspace_code: w.code, video_code: v.code, session_id: id, device_id: "d-" + id, events: [{ type: "play" }] },
  });
  expect(res.status).toBe(200);
  return id;
}

beforeAll(async () => {
  t = await testApp({ config: { trustProxy: true, limits: { readsPerMinute: 10_000, writesPerMinute: 10_000 } } });
  ws = await t.workspace();
  video = await newVideo(ws);
  await t.call("PUT", `/admin/v1/workspaces/${ws.id}/integrations/shopify`, { token: ADMIN_KEY, body: { browser_fallback: true } });
  await t.call("PUT", `/admin/v1/workspaces/${ws.id}/integrations/stripe`, { token: ADMIN_KEY, body: { browser_fallback: false } });
}, 120_000);

describe("POST /api/v1/conversions", () => {
  test("201 with the spec's body; the ledger, the outbox and an events row", async () => {
    const sid = await session(ws, video);
    const res = await s2s({
      video_code: video.code,
      session_code: sid,
      conversion_id: "ord-1",
      conversion_value: 49.9,
      conversion_currency: "eur",
      conversion_customer_email: "Buyer@Example.com",
      split_test_id: "st1",
      split_test_variation_id: "v2",
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ recorded: true, conversion_id: "ord-1", video_code: video.code, attributed_to_split_test: true });
    const rows = await chConversions(ws.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      event: "purchase",
      event_id: "api:ord-1",
      value: 49.9,
      session_code: sid,
      video_code: video.code,
      properties: { conversion_id: "ord-1", currency: "EUR", source: "api", is_test: "false" },
    });
    expect(await outboxCount(ws.id, "conversion")).toBe(1);
    expect(await outboxCount(ws.id, "conversion.created")).toBe(1);
    const [row] = await t.deps.sql`SELECT customer_email_sha256 FROM conversions WHERE workspace_id = ${ws.id} AND dedup_key = 'api:ord-1'`;
    expect(row!.customer_email_sha256).toBe(createHash("sha256").update("buyer@example.com").digest("hex"));
    // The buyer's email now resolves the viewer of that session.
    const event = await t.call("POST", "/v1/event", {
      token: ws.token,
      body: { event: "x", email: "buyer@example.com" },
      headers: { "X-Forwarded-For": ip() },
    });
    expect(event.body.matched_by).toBe("identity");
  });

  test("a retry never double-counts; Idempotency-Key replays; a generated id without conversion_id", async () => {
    const w = await t.workspace();
    const v = await newVideo(w);
    const first = await s2s({ video_code: v.code, conversion_id: "dup", conversion_value: 10 }, { token: w.token });
    const again = await s2s({ video_code: v.code, conversion_id: "dup", conversion_value: 10 }, { token: w.token });
    expect(first.body.recorded).toBe(true);
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ recorded: false, conversion_id: "dup", attributed_to_split_test: false });
    const key = crypto.randomUUID();
    const keyed = await s2s({ video_code: v.code, conversion_value: 5 }, { token: w.token, key });
    const replay = await s2s({ video_code: v.code, conversion_value: 5 }, { token: w.token, key });
    expect(replay.headers.get("idempotency-replayed")).toBe("true");
    expect(replay.body).toEqual(keyed.body);
    expect(keyed.body.conversion_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await ledger(w.id)).toHaveLength(2);
    expect(await chConversions(w.id)).toHaveLength(2);
    expect(await outboxCount(w.id, "conversion")).toBe(2);
  });

  test("404 echoes the video_code (also for another workspace's video); 422 for currency and split-test ids", async () => {
    const other = await t.workspace();
    const theirs = await newVideo(other);
    for (const code of ["nope", theirs.code]) {
      const res = await s2s({ video_code: code });
      expect(res.status).toBe(404);
      expect(res.body.video_code).toBe(code);
      expect(res.body.error.video_code).toBe(code);
    }
    const currency = await s2s({ video_code: video.code, conversion_currency: "EURO" });
    expect(currency.status).toBe(422);
    expect(currency.body.errors.conversion_currency).toBeDefined();
    const split = await s2s({ video_code: video.code, split_test_id: "only-one" });
    expect(split.status).toBe(422);
    expect(split.body.errors.split_test_variation_id).toBeDefined();
    const when = await s2s({ video_code: video.code, occurred_at: "yesterday-ish" });
    expect(when.status).toBe(422);
    expect(await ledger(other.id)).toHaveLength(0);
  });

  test("ClickHouse down: the sale is recorded from the spool; a retry is the same sale; it reaches ClickHouse once, fanned out once", async () => {
    const engines = await getEngines();
    const { createClient } = await import("@clickhouse/client");
    const dead = createClient({ url: "http://127.0.0.1:1", request_timeout: 2000, log: { level: 127 as never } });
    const deps = await createDeps(
      { ...loadConfig({ DATA_DIR: engines.tmp, LOG_LEVEL: "silent" }), limits: { readsPerMinute: 1000, writesPerMinute: 1000 } },
      { sql: engines.sql, ch: dead },
    );
    const down = createApp(deps, { adminKey: ADMIN_KEY });
    const w = await t.workspace();
    const v = await newVideo(w);
    const body = JSON.stringify({ video_code: v.code, conversion_id: "down-1", conversion_value: 12 });
    const headers = { Authorization: `Bearer ${w.token}`, "Content-Type": "application/json", "Idempotency-Key": "k-down-1" };
    const accepted = await caller(down)("POST", "/api/v1/conversions", { headers, raw: body });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toMatchObject({ recorded: true, conversion_id: "down-1" });
    expect(await chConversions(w.id)).toEqual([]);
    await deps.close();
    await dead.close();
    const retry = await t.call("POST", "/api/v1/conversions", { token: w.token, body: JSON.parse(body), headers: { "Idempotency-Key": "k-down-1" } });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotency-replayed")).toBe("true");
    const again = await s2s(JSON.parse(body), { token: w.token });
    expect(again.body.recorded).toBe(false);
    // ClickHouse answers again: the spool is replayed, once.
    await t.deps.ingest.spool.drain();
    await t.deps.ingest.spool.drain();
    expect((await chConversions(w.id)).map((e) => e.event_id)).toEqual(["api:down-1"]);
    expect(await ledger(w.id)).toHaveLength(1);
    expect(await outboxCount(w.id, "conversion")).toBe(1);
  }, 30_000);

  test("scope conversions:write; the legacy key works with Deprecation", async () => {
    const { secret } = await ws.mint(["events:write"]);
    const scoped = await s2s({ video_code: video.code }, { token: secret });
    expect(scoped.status).toBe(403);
    expect(scoped.body.error.code).toBe("INSUFFICIENT_SCOPE");
    const legacy = await s2s({ video_code: video.code, conversion_id: "legacy-1" }, { token: ws.legacyKey });
    expect(legacy.status).toBe(201);
    expect(legacy.headers.get("deprecation")).toBeTruthy();
  });
});

describe("POST /v1/conversion (browser fallback)", () => {
  test("records an unverified row: the spec's body, no revenue events, no fan-out; a retry is one row", async () => {
    const w = await t.workspace();
    const v = await newVideo(w);
    await t.call("PUT", `/admin/v1/workspaces/${w.id}/integrations/shopify`, { token: ADMIN_KEY, body: { browser_fallback: true } });
    const sid = await session(w, v);
    const body = { integration: "shopify", order_id: "1001", value: 30, session_id: sid, customer_email: "a@b.co", properties: { coupon: "X" } };
    const res = await browser(body, w);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, id: "shopify:1001", conversion_source: "browser", verified: false, attributed: true });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect((await browser(body, w)).body).toEqual(res.body);
    expect(await ledger(w.id)).toEqual([
      { dedup_key: "shopify:1001", verified: false, conversion_source: "browser", value: 30, currency: "USD", session_code: sid, video_code: v.code },
    ] as never);
    expect(await chConversions(w.id)).toHaveLength(0);
    expect(await outboxCount(w.id, "conversion")).toBe(0);
    const unknownSession = await browser({ integration: "shopify", order_id: "1002", value: 1, session_id: "nobody" }, w);
    expect(unknownSession.body.attributed).toBe(false);
  });

  test("verified wins: browser then postback collapses into one verified row", async () => {
    const w = await t.workspace();
    const v = await newVideo(w);
    await t.call("PUT", `/admin/v1/workspaces/${w.id}/integrations/shopify`, { token: ADMIN_KEY, body: { browser_fallback: true } });
    await browser({ integration: "shopify", order_id: "A1", value: 5, video_code: v.code }, w);
    const post = await s2s(
      { video_code: v.code, conversion_id: "A1", conversion_value: 50, conversion_currency: "USD", conversion_data: { integration: "shopify" } },
      { token: w.token },
    );
    expect(post.body.recorded).toBe(true);
    expect(await ledger(w.id)).toEqual([
      { dedup_key: "shopify:A1", verified: true, conversion_source: "api", value: 50, currency: "USD", session_code: null, video_code: v.code },
    ] as never);
    const events = await chConversions(w.id);
    expect(events.map((e) => [e.event_id, e.value])).toEqual([["shopify:A1", 50]]);
    expect(await outboxCount(w.id, "conversion")).toBe(1);
    // A late browser retry changes nothing.
    await browser({ integration: "shopify", order_id: "A1", value: 5, video_code: v.code }, w);
    expect((await ledger(w.id))[0]).toMatchObject({ verified: true, value: 50 });
  });

  test("verified wins: postback then browser leaves the verified row alone", async () => {
    const w = await t.workspace();
    const v = await newVideo(w);
    await t.call("PUT", `/admin/v1/workspaces/${w.id}/integrations/shopify`, { token: ADMIN_KEY, body: { browser_fallback: true } });
    await s2s({ video_code: v.code, conversion_id: "B1", conversion_value: 70, conversion_data: { integration: "shopify" } }, { token: w.token });
    const late = await browser({ integration: "shopify", order_id: "B1", value: 1 }, w);
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ id: "shopify:B1", verified: false });
    expect(await ledger(w.id)).toEqual([
      { dedup_key: "shopify:B1", verified: true, conversion_source: "api", value: 70, currency: null, session_code: null, video_code: v.code },
    ] as never);
    expect((await chConversions(w.id)).map((e) => e.value)).toEqual([70]);
    expect(await outboxCount(w.id, "conversion.created")).toBe(1);
  });

  test("errors: unknown fields 400, bounds 400, INTEGRATION_NOT_FOUND, FALLBACK_DISABLED; nothing written", async () => {
    const w = await t.workspace();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ integration: "shopify", order_id: "1", value: 1, extra: true }, 400, "INVALID_PAYLOAD"],
      [{ integration: "shopify", order_id: "1", value: -1 }, 400, "INVALID_PAYLOAD"],
      [{ integration: "shopify", order_id: "x".repeat(191), value: 1 }, 400, "INVALID_PAYLOAD"],
      [{ integration: "shopify", order_id: "1", value: 1, currency: "EURO" }, 400, "INVALID_PAYLOAD"],
      [{ integration: "shopify", value: 1 }, 400, "INVALID_PAYLOAD"],
      [{ integration: "shopify", order_id: "1", value: 1 }, 404, "INTEGRATION_NOT_FOUND"],
    ];
    for (const [body, status, code] of cases) {
      const res = await browser(body, w);
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ error: code });
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    }
    // Another workspace's integration is not this one's.
    expect((await browser({ integration: "shopify", order_id: "1", value: 1 }, w)).status).toBe(404);
    const disabled = await browser({ integration: "stripe", order_id: "1", value: 1 });
    expect(disabled.status).toBe(403);
    expect(disabled.body).toMatchObject({ error: "FALLBACK_DISABLED" });
    const unknownWs = await t.call("POST", "/v1/conversion", {
      body: { workspace_code: crypto.randomUUID(), integration: "shopify", order_id: "1", value: 1 },
    });
    expect(unknownWs.status).toBe(404);
    expect(await ledger(w.id)).toHaveLength(0);
  });

  test("answers the CORS preflight; accepts text/plain", async () => {
    const pre = await t.call("OPTIONS", "/v1/conversion", {
      headers: { Origin: "https://shop.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    expect(pre.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("content-type");
    const res = await t.call("POST", "/v1/conversion", {
      headers: { "Content-Type": "text/plain", "X-Forwarded-For": ip() },
      raw: JSON.stringify({ workspace_code: ws.code, integration: "shopify", order_id: "beacon", value: 2 }),
    });
    expect(res.status).toBe(200);
  });

  test("60 per minute per IP: 429 RATE_LIMITED", async () => {
    const addr = ip();
    let last: Awaited<ReturnType<typeof browser>> | undefined;
    for (let i = 0; i < 61; i++) last = await browser({ integration: "shopify", order_id: `rl-${i}`, value: 1 }, ws, addr);
    expect(last!.status).toBe(429);
    expect(last!.body.error).toBe("RATE_LIMITED");
    expect((await browser({ integration: "shopify", order_id: "rl-other", value: 1 }, ws, ip())).status).toBe(200);
  }, 30_000);

  test("503 UNAVAILABLE when the integration lookup cannot reach Postgres", async () => {
    const engines = await getEngines();
    const dead = connectPostgres("postgres://postgres@127.0.0.1:1/none", { max: 1, connectTimeoutSeconds: 1 });
    const config = { ...loadConfig({ DATA_DIR: engines.tmp, LOG_LEVEL: "silent" }), trustProxy: true };
    const deps = await createDeps(config, { sql: dead, ch: engines.ch });
    const app = createApp(deps, { adminKey: ADMIN_KEY });
    const res = await caller(app)("POST", "/v1/conversion", { body: { workspace_code: ws.code, integration: "shopify", order_id: "x", value: 1 } });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error: "UNAVAILABLE" });
    await dead.end({ timeout: 1 });
  }, 20_000);
});
