/** docs/api.md "The operator API": every route, its auth, shapes and validation. */
import { beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, testApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;

beforeAll(async () => {
  t = await testApp();
}, 60_000);

const admin = (method: string, path: string, body?: unknown) => t.call(method, `/admin/v1${path}`, { token: ADMIN_KEY, body });
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const NOT_FOUND = { error: { code: "NOT_FOUND", message: expect.any(String) } };

async function newWorkspace(name = `ws ${crypto.randomUUID().slice(0, 8)}`) {
  const res = await admin("POST", "/workspaces", { name });
  expect(res.status).toBe(201);
  return res.body as { workspace: { id: number; code: string; name: string; created_at: string }; legacy_key: string };
}

describe("operator auth", () => {
  const routes: [string, string, unknown][] = [
    ["POST", "/admin/v1/workspaces", { name: "x" }],
    ["GET", "/admin/v1/workspaces", undefined],
    ["POST", "/admin/v1/workspaces/1/tokens", { name: "x", scopes: ["videos:read"] }],
    ["GET", "/admin/v1/workspaces/1/tokens", undefined],
    ["DELETE", "/admin/v1/tokens/1", undefined],
    ["POST", "/admin/v1/workspaces/1/custom-metrics", { name: "x" }],
    ["PUT", "/admin/v1/workspaces/1/integrations/stripe", { browser_fallback: true }],
  ];

  test("every route without a key → 401 AUTH_REQUIRED, even with an invalid body", async () => {
    for (const [method, path, body] of routes) {
      for (const sent of [body, {}]) {
        const res = await t.call(method, path, { body: method === "GET" || method === "DELETE" ? undefined : sent });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: { code: "AUTH_REQUIRED", message: expect.any(String) } });
      }
    }
  });

  test("every route with a wrong key, a workspace token or a legacy key → 401 INVALID_TOKEN, and nothing changes", async () => {
    const before = await admin("GET", "/workspaces");
    const ws = await t.workspace();
    for (const credential of [ADMIN_KEY + "x", ADMIN_KEY.slice(0, -1), ws.token, ws.legacyKey, "nope"]) {
      for (const [method, path, body] of routes) {
        const res = await t.call(method, path, { token: credential, body });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: { code: "INVALID_TOKEN", message: expect.any(String) } });
      }
    }
    const after = await admin("GET", "/workspaces");
    expect(after.body.workspaces.length).toBe(before.body.workspaces.length + 1);
  });

  test("an empty bearer is AUTH_REQUIRED", async () => {
    const res = await t.call("GET", "/admin/v1/workspaces", { headers: { Authorization: "Bearer " } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("AUTH_REQUIRED");
  });
});

describe("workspaces", () => {
  test("POST /workspaces → 201 {workspace: {id, code, name, created_at}, legacy_key}", async () => {
    const res = await admin("POST", "/workspaces", { name: "Acme" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["legacy_key", "workspace"]);
    expect(res.body.workspace).toEqual({ id: expect.any(Number), code: expect.any(String), name: "Acme", created_at: expect.stringMatching(ISO) });
    expect(res.body.workspace.code).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.legacy_key).toMatch(/^flk_[A-Za-z0-9]{32,}$/);
    // The legacy key works on the application API at once.
    const list = await t.call("GET", "/api/v1/videos", { token: res.body.legacy_key });
    expect(list.status).toBe(200);
  });

  test("name is required, a string, at most 255 characters → 422 otherwise", async () => {
    for (const body of [{}, { name: "" }, { name: "x".repeat(256) }, { name: 7 }]) {
      const res = await admin("POST", "/workspaces", body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: expect.any(String), errors: { name: [expect.any(String)] } });
    }
    expect((await admin("POST", "/workspaces", { name: "x".repeat(255) })).status).toBe(201);
  });

  test("GET /workspaces → {workspaces: [...]} with every workspace, no keys", async () => {
    const a = await newWorkspace("listed a");
    const b = await newWorkspace("listed b");
    const res = await admin("GET", "/workspaces");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["workspaces"]);
    expect(res.body.workspaces).toContainEqual(a.workspace);
    expect(res.body.workspaces).toContainEqual(b.workspace);
    expect(res.text).not.toContain(a.legacy_key);
    expect(res.text).not.toContain("legacy_key");
  });
});

describe("tokens", () => {
  test("POST /workspaces/{id}/tokens → 201 {token: {id, name, scopes, expires_at, created_at}, secret}; the secret works", async () => {
    const { workspace } = await newWorkspace();
    const res = await admin("POST", `/workspaces/${workspace.id}/tokens`, { name: "CI", scopes: ["videos:read", "videos:write"] });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["secret", "token"]);
    expect(res.body.token).toEqual({
      id: expect.any(Number),
      name: "CI",
      scopes: ["videos:read", "videos:write"],
      expires_at: null,
      created_at: expect.stringMatching(ISO),
    });
    expect(res.body.secret).toMatch(/^flt_[A-Za-z0-9_-]{40,}$/);
    const created = await t.call("POST", "/api/v1/videos", { token: res.body.secret, body: { title: "minted" } });
    expect(created.status).toBe(201);
    expect(created.body.video.workspace_id).toBe(workspace.id);
  });

  test("expires_in_days 1 and 3650 set expires_at that many days ahead", async () => {
    const { workspace } = await newWorkspace();
    for (const days of [1, 3650]) {
      const res = await admin("POST", `/workspaces/${workspace.id}/tokens`, { name: "expiring", scopes: ["videos:read"], expires_in_days: days });
      expect(res.status).toBe(201);
      const ahead = new Date(res.body.token.expires_at).getTime() - Date.now();
      expect(Math.abs(ahead - days * 86_400_000)).toBeLessThan(60_000);
    }
  });

  test("expires_in_days null (blank) means never expires", async () => {
    const { workspace } = await newWorkspace();
    const res = await admin("POST", `/workspaces/${workspace.id}/tokens`, { name: "blank", scopes: ["videos:read"], expires_in_days: null });
    expect(res.status).toBe(201);
    expect(res.body.token.expires_at).toBeNull();
  });

  test("expires_in_days outside 1..3650 or not an integer → 422, nothing minted", async () => {
    const { workspace } = await newWorkspace();
    for (const days of [0, -1, 3651, 1.5, "abc"]) {
      const res = await admin("POST", `/workspaces/${workspace.id}/tokens`, { name: "bad", scopes: ["videos:read"], expires_in_days: days });
      expect(res.status).toBe(422);
      expect(res.body.errors.expires_in_days).toBeArray();
    }
    expect((await admin("GET", `/workspaces/${workspace.id}/tokens`)).body.tokens).toEqual([]);
  });

  test("an unknown scope, no scopes, or a missing name → 422, nothing minted", async () => {
    const { workspace } = await newWorkspace();
    for (const [body, field] of [
      [{ name: "x", scopes: ["videos:read", "videos:admin"] }, "scopes"],
      [{ name: "x", scopes: ["VIDEOS:READ"] }, "scopes"],
      [{ name: "x", scopes: [] }, "scopes"],
      [{ name: "x", scopes: "videos:read" }, "scopes"],
      [{ name: "x" }, "scopes"],
      [{ scopes: ["videos:read"] }, "name"],
      [{ name: "", scopes: ["videos:read"] }, "name"],
    ] as const) {
      const res = await admin("POST", `/workspaces/${workspace.id}/tokens`, body);
      expect(res.status).toBe(422);
      expect(res.body.message).toBeString();
      expect(res.body.errors[field]).toBeArray();
    }
    expect((await admin("GET", `/workspaces/${workspace.id}/tokens`)).body.tokens).toEqual([]);
  });

  test("every docs/api.md scope can be minted", async () => {
    const { workspace } = await newWorkspace();
    const scopes = [
      "events:write",
      "conversions:write",
      "conversions:read",
      "analytics:read",
      "videos:read",
      "videos:write",
      "webhooks:write",
      "integrations:read",
      "workspace:read",
    ];
    const res = await admin("POST", `/workspaces/${workspace.id}/tokens`, { name: "all", scopes });
    expect(res.status).toBe(201);
    expect([...res.body.token.scopes].sort()).toEqual([...scopes].sort());
  });

  test("GET /workspaces/{id}/tokens → {tokens: [...]}, never a secret or its hash, only live tokens", async () => {
    const { workspace } = await newWorkspace();
    const one = await admin("POST", `/workspaces/${workspace.id}/tokens`, { name: "one", scopes: ["videos:read"] });
    const two = await admin("POST", `/workspaces/${workspace.id}/tokens`, { name: "two", scopes: ["analytics:read"], expires_in_days: 30 });
    const res = await admin("GET", `/workspaces/${workspace.id}/tokens`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tokens: [one.body.token, two.body.token] });
    const [hash] = await t.deps.sql`SELECT token_hash FROM api_tokens WHERE id = ${one.body.token.id}`;
    for (const secret of [one.body.secret, two.body.secret, one.body.secret.slice(4), hash!.token_hash]) expect(res.text).not.toContain(secret);
    expect(res.text).not.toContain("secret");
    expect(res.text).not.toContain("hash");
    await admin("DELETE", `/tokens/${one.body.token.id}`);
    expect((await admin("GET", `/workspaces/${workspace.id}/tokens`)).body.tokens).toEqual([two.body.token]);
  });

  test("tokens of one workspace are not listed under another", async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    await admin("POST", `/workspaces/${a.workspace.id}/tokens`, { name: "a only", scopes: ["videos:read"] });
    expect((await admin("GET", `/workspaces/${b.workspace.id}/tokens`)).body.tokens).toEqual([]);
  });

  test("DELETE /tokens/{id} → 200 {revoked: true}; the token fails at once; a second revoke or an unknown id → 404", async () => {
    const { workspace } = await newWorkspace();
    const minted = await admin("POST", `/workspaces/${workspace.id}/tokens`, { name: "short lived", scopes: ["videos:read"] });
    expect((await t.call("GET", "/api/v1/videos", { token: minted.body.secret })).status).toBe(200);
    const res = await admin("DELETE", `/tokens/${minted.body.token.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ revoked: true });
    const after = await t.call("GET", "/api/v1/videos", { token: minted.body.secret });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("INVALID_TOKEN");
    for (const id of [minted.body.token.id, 987654321, "abc"]) {
      const again = await admin("DELETE", `/tokens/${id}`);
      expect(again.status).toBe(404);
      expect(again.body).toEqual(NOT_FOUND);
    }
  });
});

describe("custom metrics", () => {
  test("POST /workspaces/{id}/custom-metrics → 201 {metric: {name}} with the name normalised", async () => {
    const { workspace } = await newWorkspace();
    for (const [sent, stored] of [
      ["Lead Captured!", "leadcaptured"],
      ["  Add_To-Cart 2 ", "add_to-cart2"],
      ["ÜBER-Click", "ber-click"],
      ["A".repeat(100), "a".repeat(64)],
    ]) {
      const res = await admin("POST", `/workspaces/${workspace.id}/custom-metrics`, { name: sent });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ metric: { name: stored } });
    }
    const rows = await t.deps.sql`SELECT name FROM custom_metrics WHERE workspace_id = ${workspace.id} ORDER BY name`;
    expect(rows.map((r) => r.name).sort()).toEqual(["a".repeat(64), "add_to-cart2", "ber-click", "leadcaptured"].sort());
  });

  test("declaring the same name twice keeps one row", async () => {
    const { workspace } = await newWorkspace();
    expect((await admin("POST", `/workspaces/${workspace.id}/custom-metrics`, { name: "signup" })).status).toBe(201);
    expect((await admin("POST", `/workspaces/${workspace.id}/custom-metrics`, { name: "SignUp" })).status).toBe(201);
    expect(await t.deps.sql`SELECT 1 FROM custom_metrics WHERE workspace_id = ${workspace.id}`).toHaveLength(1);
  });

  test("a name with nothing left after normalising, or no name → 422", async () => {
    const { workspace } = await newWorkspace();
    for (const body of [{ name: "!!! ???" }, { name: "" }, {}]) {
      const res = await admin("POST", `/workspaces/${workspace.id}/custom-metrics`, body);
      expect(res.status).toBe(422);
      expect(res.body.errors.name).toBeArray();
    }
    expect(await t.deps.sql`SELECT 1 FROM custom_metrics WHERE workspace_id = ${workspace.id}`).toHaveLength(0);
  });
});

describe("integrations", () => {
  test("PUT /workspaces/{id}/integrations/{integration} → 200 {integration: {name, browser_fallback}}, stored and switchable", async () => {
    const { workspace } = await newWorkspace();
    const on = await t.call("PUT", `/admin/v1/workspaces/${workspace.id}/integrations/stripe`, { token: ADMIN_KEY, body: { browser_fallback: true } });
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ integration: { name: "stripe", browser_fallback: true } });
    let [row] = await t.deps.sql`SELECT browser_fallback FROM integrations WHERE workspace_id = ${workspace.id} AND name = 'stripe'`;
    expect(row!.browser_fallback).toBe(true);
    const off = await admin("PUT", `/workspaces/${workspace.id}/integrations/stripe`, { browser_fallback: false });
    expect(off.body).toEqual({ integration: { name: "stripe", browser_fallback: false } });
    [row] = await t.deps.sql`SELECT browser_fallback FROM integrations WHERE workspace_id = ${workspace.id} AND name = 'stripe'`;
    expect(row!.browser_fallback).toBe(false);
    expect(await t.deps.sql`SELECT 1 FROM integrations WHERE workspace_id = ${workspace.id}`).toHaveLength(1);
  });

  test("browser_fallback missing or not a boolean → 422", async () => {
    const { workspace } = await newWorkspace();
    for (const body of [{}, { browser_fallback: "on" }, { browser_fallback: 1 }]) {
      const res = await admin("PUT", `/workspaces/${workspace.id}/integrations/stripe`, body);
      expect(res.status).toBe(422);
      expect(res.body.errors.browser_fallback).toBeArray();
    }
    expect(await t.deps.sql`SELECT 1 FROM integrations WHERE workspace_id = ${workspace.id}`).toHaveLength(0);
  });
});

describe("unknown workspace → 404", () => {
  test("on every workspace route, and nothing is written", async () => {
    for (const id of [987654321, "abc", 0]) {
      for (const [method, path, body] of [
        ["POST", `/workspaces/${id}/tokens`, { name: "x", scopes: ["videos:read"] }],
        ["GET", `/workspaces/${id}/tokens`, undefined],
        ["POST", `/workspaces/${id}/custom-metrics`, { name: "x" }],
        ["PUT", `/workspaces/${id}/integrations/stripe`, { browser_fallback: true }],
      ] as const) {
        const res = await admin(method, path, body);
        expect(res.status).toBe(404);
        expect(res.body).toEqual(NOT_FOUND);
      }
    }
    expect(await t.deps.sql`SELECT 1 FROM api_tokens WHERE workspace_id = 987654321`).toHaveLength(0);
  });
});
