/** docs/api.md "Webhook subscriptions": routes, validation, secrecy, workspace isolation, SSRF refusal and the test endpoint. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { startReceiver, verifyStandardWebhook, type Receiver } from "../helpers/receiver.ts";
import { SPEC_EVENTS } from "../helpers/spec.ts";
const SECRET = "my-receiver-secret-000000000000";
const limits = { readsPerMinute: 100_000, writesPerMinute: 100_000 };

let t: TestApp;
let strict: TestApp;
let ws: TestWorkspace;
let rx: Receiver;

beforeAll(async () => {
  t = await testApp({ config: { webhookAllowPrivate: true, limits } });
  strict = await testApp({ config: { webhookAllowPrivate: false, limits } });
  ws = await t.workspace();
  rx = startReceiver();
}, 60_000);

afterAll(async () => {
  await rx.stop();
});

const create = (app: TestApp, token: string, body: Record<string, unknown>) => app.call("POST", "/api/v1/webhooks", { token, body });
const valid = () => ({ name: "Orders", url: `${rx.url}/hook`, events: ["video.created", "conversion.created"], secret: SECRET });
const countFor = async (workspaceId: number) =>
  (await t.deps.sql`SELECT count(*)::int AS n FROM webhook_subscriptions WHERE workspace_id = ${workspaceId}`)[0]!.n as number;

describe("auth", () => {
  test("every route needs a token with webhooks:write", async () => {
    const readOnly = await ws.mint(["videos:read", "videos:write"]);
    for (const [method, path] of [
      ["GET", "/api/v1/webhooks"],
      ["POST", "/api/v1/webhooks"],
      ["DELETE", "/api/v1/webhooks/1"],
      ["POST", "/api/v1/webhooks/1/test"],
    ] as const) {
      expect((await t.call(method, path, {})).status).toBe(401);
      const denied = await t.call(method, path, { token: readOnly.secret, body: method === "POST" ? valid() : undefined });
      expect(denied.status).toBe(403);
      expect(denied.body.error).toMatchObject({ code: "INSUFFICIENT_SCOPE", required: "webhooks:write" });
    }
    expect(await countFor(ws.id)).toBe(0);
  });
});

describe("create and list", () => {
  test("create answers 201 with the subscription and never the secret; list adds supported_events (exactly docs/api.md's)", async () => {
    const res = await create(t, ws.token, valid());
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      webhook: {
        id: expect.any(Number),
        workspace_id: ws.id,
        name: "Orders",
        url: `${rx.url}/hook`,
        events: ["video.created", "conversion.created"],
        is_active: true,
        failure_count: 0,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    expect(res.text).not.toContain(SECRET);
    const list = await t.call("GET", "/api/v1/webhooks", { token: ws.token });
    expect(list.status).toBe(200);
    expect(list.body.supported_events).toEqual(SPEC_EVENTS);
    expect(list.body.webhooks).toContainEqual(res.body.webhook);
    expect(list.text).not.toContain(SECRET);
    expect(list.text).not.toContain("secret");
  });

  test("without a secret the server generates one (stored, never shown)", async () => {
    const { secret: _omit, ...body } = valid();
    const res = await create(t, ws.token, body);
    expect(res.status).toBe(201);
    expect(JSON.stringify(res.body)).not.toContain("secret");
    const [row] = await t.deps.sql`SELECT secret FROM webhook_subscriptions WHERE id = ${res.body.webhook.id}`;
    expect(row!.secret.length).toBeGreaterThanOrEqual(32);
    const other = await create(t, ws.token, body);
    const [row2] = await t.deps.sql`SELECT secret FROM webhook_subscriptions WHERE id = ${other.body.webhook.id}`;
    expect(row2!.secret).not.toBe(row!.secret);
  });

  test("invalid input is a 422 in the validation shape and creates nothing", async () => {
    const before = await countFor(ws.id);
    const cases: [Record<string, unknown>, string][] = [
      [{ ...valid(), name: undefined }, "name"],
      [{ ...valid(), name: "" }, "name"],
      [{ ...valid(), name: "n".repeat(129) }, "name"],
      [{ ...valid(), url: undefined }, "url"],
      [{ ...valid(), url: "not a url" }, "url"],
      [{ ...valid(), url: "ftp://example.com/hook" }, "url"],
      [{ ...valid(), url: `${rx.url}/${"a".repeat(2048)}` }, "url"],
      [{ ...valid(), events: undefined }, "events"],
      [{ ...valid(), events: [] }, "events"],
      [{ ...valid(), events: ["video.created", "video.exploded"] }, "events"],
      [{ ...valid(), events: ["webhook.test"] }, "events"],
      [{ ...valid(), events: "video.created" }, "events"],
      [{ ...valid(), secret: "short-secret" }, "secret"],
      [{ ...valid(), secret: "s".repeat(129) }, "secret"],
    ];
    for (const [body, field] of cases) {
      const res = await create(t, ws.token, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(res.body.message).toBeString();
      expect(Object.keys(res.body.errors)).toContain(field);
    }
    expect(await countFor(ws.id)).toBe(before);
    // The boundaries themselves are accepted.
    expect((await create(t, ws.token, { ...valid(), name: "n".repeat(128), secret: "s".repeat(16) })).status).toBe(201);
    expect((await create(t, ws.token, { ...valid(), secret: "s".repeat(128), events: SPEC_EVENTS })).status).toBe(201);
  });
});

describe("SSRF refusal at subscribe time (WEBHOOK_ALLOW_PRIVATE off)", () => {
  test("loopback, private, link-local, shared, metadata and unspecified targets are refused with 422", async () => {
    const sw = await strict.workspace();
    for (const url of [
      "http://127.0.0.1/hook",
      "http://127.9.9.9:8080/hook",
      "http://localhost/hook",
      "http://0.0.0.0/hook",
      "http://10.1.2.3/hook",
      "http://172.16.0.1/hook",
      "http://172.31.255.255/hook",
      "http://192.168.1.10/hook",
      "http://100.64.0.1/hook",
      "http://169.254.169.254/latest/meta-data/",
      "http://[::1]/hook",
      "http://[fd00::1]/hook",
      "http://[fe80::1]/hook",
      "http://[::ffff:127.0.0.1]/hook",
      "http://[::ffff:a9fe:a9fe]/hook",
      "http://[64:ff9b::127.0.0.1]/hook", // NAT64 of loopback
      "http://[2002:a00:1::1]/hook", // 6to4 of 10.0.0.1
      "http://[fd00:ec2::254]/latest/meta-data/",
      "http://2130706433/hook", // 127.0.0.1 in decimal
      "http://0x7f.1/hook",
    ]) {
      const res = await create(strict, sw.token, { ...valid(), url });
      expect(res.status, url).toBe(422);
      expect(res.body.errors.url[0], url).toContain("not allowed");
    }
    const auto = await strict.call("POST", "/api/v1/zapier/subscribe", { token: sw.token, body: { target_url: "http://169.254.169.254/", event: "new_lead" } });
    expect(auto.status).toBe(422);
    expect(auto.body.errors.target_url[0]).toContain("not allowed");
    expect((await strict.call("GET", "/api/v1/webhooks", { token: sw.token })).body.webhooks).toEqual([]);
  });

  test("a public address is accepted", async () => {
    const sw = await strict.workspace();
    const res = await create(strict, sw.token, { ...valid(), url: "https://93.184.215.14/hook" });
    expect(res.status).toBe(201);
  });

  test("the test endpoint re-checks at connect time and never reaches a private target", async () => {
    const sw = await strict.workspace();
    const res = await create(strict, sw.token, { ...valid(), url: "https://93.184.215.14/hook" });
    // As if the name now resolved to loopback (the stored URL no longer passes the check).
    await strict.deps.sql`UPDATE webhook_subscriptions SET url = ${`http://127.0.0.1:${rx.port}/hook`} WHERE id = ${res.body.webhook.id}`;
    const before = rx.requests.length;
    const tested = await strict.call("POST", `/api/v1/webhooks/${res.body.webhook.id}/test`, { token: sw.token });
    expect(tested.status).toBe(502);
    expect(tested.body.delivered).toBe(false);
    expect(tested.body.error).toContain("refused");
    expect(rx.requests.length).toBe(before);
  });
});

describe("delete", () => {
  test("delete answers {deleted: true}; again, unknown, non-numeric or another workspace's id is a model 404", async () => {
    const other = await t.workspace();
    const mine = (await create(t, ws.token, valid())).body.webhook;
    const theirs = (await create(t, other.token, valid())).body.webhook;

    const foreign = await t.call("DELETE", `/api/v1/webhooks/${theirs.id}`, { token: ws.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: `No query results for model [Webhook] ${theirs.id}` });
    expect((await t.call("GET", "/api/v1/webhooks", { token: other.token })).body.webhooks.map((w: any) => w.id)).toEqual([theirs.id]);
    expect((await t.call("GET", "/api/v1/webhooks", { token: ws.token })).body.webhooks.map((w: any) => w.id)).not.toContain(theirs.id);

    const res = await t.call("DELETE", `/api/v1/webhooks/${mine.id}`, { token: ws.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true });
    expect((await t.call("GET", "/api/v1/webhooks", { token: ws.token })).body.webhooks.map((w: any) => w.id)).not.toContain(mine.id);
    expect((await t.call("DELETE", `/api/v1/webhooks/${mine.id}`, { token: ws.token })).status).toBe(404);
    expect((await t.call("DELETE", "/api/v1/webhooks/abc", { token: ws.token })).status).toBe(404);
  });
});

/** A new subscription and its test delivery (POST /webhooks/{id}/test) to the receiver, which answers `status`. */
async function testDelivery(status: number) {
  const hook = (await create(t, ws.token, valid())).body.webhook;
  rx.reset();
  rx.respond({ status });
  return { hook, res: await t.call("POST", `/api/v1/webhooks/${hook.id}/test`, { token: ws.token }) };
}

describe("test delivery", () => {
  test("200 {delivered: true, status_code} after one signed webhook.test delivery", async () => {
    const { hook, res } = await testDelivery(202);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ delivered: true, status_code: 202 });
    expect(rx.requests).toHaveLength(1);
    const [sent] = rx.requests;
    expect(sent!.path).toBe("/hook");
    expect(sent!.json).toMatchObject({ event: "webhook.test", workspace_id: ws.id, data: { webhook_id: hook.id } });
    expect(sent!.headers["webhook-id"]).toBe(sent!.json.id);
    expect(Date.parse(sent!.json.created_at)).not.toBeNaN();
    expect(await verifyStandardWebhook(SECRET, sent!.headers, sent!.body)).toBe(true);
    rx.respond({ status: 200 });
  });

  test("502 {delivered: false, error} on an error status or no receiver, attempted exactly once and never retried", async () => {
    const { hook, res } = await testDelivery(500);
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ delivered: false, error: "receiver answered HTTP 500" });
    await Bun.sleep(100);
    expect(rx.requests).toHaveLength(1);
    // A test does not count as a failure of the subscription and leaves no delivery behind.
    const [row] = await t.deps.sql`SELECT failure_count, is_active FROM webhook_subscriptions WHERE id = ${hook.id}`;
    expect(row).toEqual({ failure_count: 0, is_active: true });
    expect((await t.deps.sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = ${hook.id}`)[0]!.n).toBe(0);
    rx.respond({ status: 200 });

    const closed = (await create(t, ws.token, { ...valid(), url: "http://127.0.0.1:9/hook" })).body.webhook;
    const refused = await t.call("POST", `/api/v1/webhooks/${closed.id}/test`, { token: ws.token });
    expect(refused.status).toBe(502);
    expect(refused.body.delivered).toBe(false);
    expect(refused.body.error).toContain("could not connect");
  });

  test("another workspace's subscription is a 404 and receives nothing", async () => {
    const other = await t.workspace();
    const theirs = (await create(t, other.token, valid())).body.webhook;
    rx.reset();
    const res = await t.call("POST", `/api/v1/webhooks/${theirs.id}/test`, { token: ws.token });
    expect(res.status).toBe(404);
    expect(rx.requests).toHaveLength(0);
    expect((await t.call("POST", "/api/v1/webhooks/0/test", { token: ws.token })).status).toBe(404);
  });
});
