/** docs/api.md "Automation-platform REST hooks" at /api/v1/{zapier|make|n8n}/... (docs/api.md). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { startReceiver, type Receiver } from "../helpers/receiver.ts";
import { enqueueEvent } from "../../server/storage/outbox.ts";
import { WebhookDeliverer } from "../../server/workers/webhook-deliverer.ts";

/** docs/api.md's trigger catalogue (key, event, label), copied by hand. */
const CATALOGUE = [
  ["new_lead", "lead.captured", "New Lead"],
  ["new_conversion", "conversion.created", "New Conversion"],
  ["play_milestone", "play.milestone", "Play Milestone Reached"],
  ["split_test_winner", "split_test.winner_declared", "Split Test Winner Declared"],
  ["cta_clicked", "cta.clicked", "CTA Clicked"],
  ["video_viewed", "video.viewed", "Video Viewed"],
] as const;
const PLATFORMS = [
  ["zapier", "Zapier"],
  ["make", "Make"],
  ["n8n", "n8n"],
] as const;

let t: TestApp;
let ws: TestWorkspace;
let rx: Receiver;

beforeAll(async () => {
  t = await testApp({ config: { webhookAllowPrivate: true, limits: { readsPerMinute: 100_000, writesPerMinute: 100_000 } } });
  ws = await t.workspace();
  rx = startReceiver();
}, 60_000);

afterAll(async () => {
  await rx.stop();
});

describe.each(PLATFORMS)("%s", (platform, display) => {
  const base = `/api/v1/${platform}`;

  test("me names the token's workspace", async () => {
    const res = await t.call("GET", `${base}/me`, { token: ws.token });
    expect(res.status).toBe(200);
    const [row] = await t.deps.sql`SELECT name, code FROM workspaces WHERE id = ${ws.id}`;
    expect(res.body).toEqual({ workspace_id: ws.id, workspace_name: row!.name, workspace_code: ws.code });
    expect(ws.code).toBe(row!.code);
  });

  test("triggers is exactly the spec's catalogue", async () => {
    const res = await t.call("GET", `${base}/triggers`, { token: ws.token });
    expect(res.status).toBe(200);
    expect(res.body.triggers.map((x: any) => [x.key, x.event, x.label])).toEqual(CATALOGUE.map((c) => [...c]));
    for (const x of res.body.triggers) expect(x.description).toBeString();
  });

  test("each trigger's sample is an array of one delivery in the live envelope; new_lead has the spec's data", async () => {
    for (const [key, event] of CATALOGUE) {
      const res = await t.call("GET", `${base}/triggers/${key}/sample`, { token: ws.token });
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(1);
      expect(Object.keys(res.body[0]).sort()).toEqual(["created_at", "data", "event", "id", "workspace_id"]);
      expect(res.body[0]).toMatchObject({ event, workspace_id: ws.id });
      expect(Date.parse(res.body[0].created_at)).not.toBeNaN();
    }
    const lead = (await t.call("GET", `${base}/triggers/new_lead/sample`, { token: ws.token })).body[0];
    expect(Object.keys(lead.data).sort()).toEqual(["captured_at", "identity", "url", "video_code"]);
    expect(Object.keys(lead.data.identity).sort()).toEqual(["email", "first_name"]);
  });

  test("an unknown key, or the internal event name, is 200 {error: unknown_trigger} (docs/api.md: a 200-range status) on sample and on subscribe, creating nothing", async () => {
    for (const key of ["nope", "lead.captured"]) {
      const sample = await t.call("GET", `${base}/triggers/${encodeURIComponent(key)}/sample`, { token: ws.token });
      expect(sample.status).toBe(200);
      expect(sample.body).toEqual({ error: "unknown_trigger" });
      const sub = await t.call("POST", `${base}/subscribe`, { token: ws.token, body: { target_url: `${rx.url}/z`, event: key } });
      expect(sub.status).toBe(200);
      expect(sub.body).toEqual({ error: "unknown_trigger" });
    }
    expect((await t.deps.sql`SELECT count(*)::int AS n FROM webhook_subscriptions WHERE workspace_id = ${ws.id} AND source = ${platform}`)[0]!.n).toBe(0);
  });

  test("subscribe validates target_url and event in the 422 shape", async () => {
    for (const body of [
      { event: "new_lead" },
      { target_url: `${rx.url}/z` },
      { target_url: "nope", event: "new_lead" },
      { target_url: `${rx.url}/${"x".repeat(2048)}`, event: "new_lead" },
    ]) {
      const res = await t.call("POST", `${base}/subscribe`, { token: ws.token, body });
      expect(res.status).toBe(422);
      expect(res.body.errors).toBeObject();
    }
  });

  test("subscribe makes a normal subscription named '<Platform>: <label>' that receives the internal event", async () => {
    const res = await t.call("POST", `${base}/subscribe`, { token: ws.token, body: { target_url: `${rx.url}/${platform}`, event: "new_lead" } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(Number), event: "lead.captured" });
    const listed = (await t.call("GET", "/api/v1/webhooks", { token: ws.token })).body.webhooks.find((w: any) => w.id === res.body.id);
    expect(listed).toMatchObject({ name: `${display}: New Lead`, url: `${rx.url}/${platform}`, events: ["lead.captured"], is_active: true });
    expect(JSON.stringify(listed)).not.toContain("secret");
    const [row] = await t.deps.sql`SELECT secret FROM webhook_subscriptions WHERE id = ${res.body.id}`;
    expect(row!.secret.length).toBeGreaterThanOrEqual(32);

    rx.reset();
    const eventId = await enqueueEvent(t.deps.sql, ws.id, "lead.captured", {
      video_code: "c",
      identity: { email: "x@y.z", first_name: "X" },
      url: "https://e.x",
      captured_at: new Date().toISOString(),
    });
    await new WebhookDeliverer(t.deps).runUntilIdle();
    const got = rx.requests.filter((r) => r.path === `/${platform}`);
    expect(got.map((r) => r.json.id)).toEqual([eventId]);
    expect(got[0]!.json).toMatchObject({ event: "lead.captured", workspace_id: ws.id });
  });

  test("unsubscribe answers {deleted: true} for its own, unknown and foreign ids, deleting only its own", async () => {
    const other = await t.workspace();
    const mine = (await t.call("POST", `${base}/subscribe`, { token: ws.token, body: { target_url: `${rx.url}/a`, event: "cta_clicked" } })).body.id;
    const theirs = (await t.call("POST", `${base}/subscribe`, { token: other.token, body: { target_url: `${rx.url}/b`, event: "cta_clicked" } })).body.id;
    for (const id of [theirs, 999_999_999, "abc"]) {
      const res = await t.call("DELETE", `${base}/subscribe/${id}`, { token: ws.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: true });
    }
    expect((await t.call("GET", "/api/v1/webhooks", { token: other.token })).body.webhooks.map((w: any) => w.id)).toEqual([theirs]);
    const res = await t.call("DELETE", `${base}/subscribe/${mine}`, { token: ws.token });
    expect(res.body).toEqual({ deleted: true });
    expect((await t.call("GET", "/api/v1/webhooks", { token: ws.token })).body.webhooks.map((w: any) => w.id)).not.toContain(mine);
  });
});

describe("rules shared by all platforms", () => {
  test("all five routes need webhooks:write", async () => {
    const reader = await ws.mint(["videos:read", "workspace:read", "integrations:read"]);
    for (const [method, path] of [
      ["GET", "/api/v1/zapier/me"],
      ["GET", "/api/v1/make/triggers"],
      ["GET", "/api/v1/n8n/triggers/new_lead/sample"],
      ["POST", "/api/v1/zapier/subscribe"],
      ["DELETE", "/api/v1/zapier/subscribe/1"],
    ] as const) {
      expect((await t.call(method, path, {})).status).toBe(401);
      const res = await t.call(method, path, { token: reader.secret, body: method === "POST" ? { target_url: `${rx.url}/z`, event: "new_lead" } : undefined });
      expect(res.status).toBe(403);
      expect(res.body.error.required).toBe("webhooks:write");
    }
  });

  test("GETs count against the write rate (60 per minute per token by default)", async () => {
    const limited = await testApp({ config: { webhookAllowPrivate: true, limits: { readsPerMinute: 600, writesPerMinute: 3 } } });
    const w = await limited.workspace(["webhooks:write", "videos:read"]);
    const paths = ["/api/v1/zapier/me", "/api/v1/zapier/triggers", "/api/v1/zapier/triggers/new_lead/sample"];
    for (const path of paths) expect((await limited.call("GET", path, { token: w.token })).status).toBe(200);
    const over = await limited.call("GET", "/api/v1/zapier/me", { token: w.token });
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).toBeTruthy();
    expect((await limited.call("DELETE", "/api/v1/zapier/subscribe/1", { token: w.token })).status).toBe(429);
    // A read-kind route on the same token still has its own budget.
    expect((await limited.call("GET", "/api/v1/videos", { token: w.token })).status).toBe(200);
  });

  test("unsubscribe honours Idempotency-Key", async () => {
    const id = (await t.call("POST", "/api/v1/zapier/subscribe", { token: ws.token, body: { target_url: `${rx.url}/i`, event: "video_viewed" } })).body.id;
    const headers = { "Idempotency-Key": `unsub-${id}` };
    const first = await t.call("DELETE", `/api/v1/zapier/subscribe/${id}`, { token: ws.token, headers });
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotency-replayed")).toBeNull();
    const again = await t.call("DELETE", `/api/v1/zapier/subscribe/${id}`, { token: ws.token, headers });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ deleted: true });
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    const reused = await t.call("DELETE", `/api/v1/zapier/subscribe/${id + 1}`, { token: ws.token, headers });
    expect(reused.status).toBe(422);
  });

  test("a subscription made through one platform can be removed through the webhooks API too", async () => {
    const id = (await t.call("POST", "/api/v1/make/subscribe", { token: ws.token, body: { target_url: `${rx.url}/m`, event: "play_milestone" } })).body.id;
    expect((await t.call("DELETE", `/api/v1/webhooks/${id}`, { token: ws.token })).body).toEqual({ deleted: true });
  });
});
