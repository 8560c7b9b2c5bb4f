/** docs/api.md "Authentication": tokens, scopes, the legacy key and every auth failure. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { createApp } from "../../server/app.ts";
import type { Deps } from "../../server/deps.ts";
import { createDeps } from "../../server/runtime.ts";
import { connectPostgres } from "../../server/storage/postgres.ts";
import { appAndWorkspace, ADMIN_KEY, BASE, testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { getEngines } from "../helpers/engines.ts";

let t: TestApp;
let ws: TestWorkspace;

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
const INVALID = { error: { code: "INVALID_TOKEN", message: expect.any(String) } };
const REQUIRED = { error: { code: "AUTH_REQUIRED", message: expect.any(String) } };

beforeAll(async () => {
  ({ t, ws } = await appAndWorkspace());
}, 60_000);

describe("401 AUTH_REQUIRED", () => {
  test("no credential at all", async () => {
    const res = await t.call("GET", "/api/v1/videos");
    expect(res.status).toBe(401);
    expect(res.body).toEqual(REQUIRED);
  });

  test("an empty bearer and an empty X-API-Key", async () => {
    for (const headers of [{ Authorization: "Bearer " }, { Authorization: "Bearer" }, { "X-API-Key": "" }] as Record<string, string>[]) {
      const res = await t.call("GET", "/api/v1/videos", { headers });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("AUTH_REQUIRED");
    }
  });

  test("comes before body validation: a bad body without a token is 401, not 422, and creates nothing", async () => {
    const res = await t.call("POST", "/api/v1/videos", { body: { title: "" } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(REQUIRED);
    const bad = await t.call("POST", "/api/v1/videos", { token: "flt_nope", body: {} });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual(INVALID);
  });
});

describe("401 INVALID_TOKEN", () => {
  test("an unknown flt_ token", async () => {
    const res = await t.call("GET", "/api/v1/videos", { token: "flt_" + "a".repeat(43) });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID);
  });

  // HTTP itself strips leading and trailing whitespace from a header value (RFC 9110 5.5),
  // so stray whitespace can only reach the service inside the value or after the scheme.
  test("exact hash match: an inner space, an extra character, a doubled separator or a missing character fails", async () => {
    const variants = [ws.token.slice(0, 10) + " " + ws.token.slice(10), ws.token + "x", ws.token.slice(0, -1), ws.token.toUpperCase()];
    for (const token of variants) {
      const res = await t.call("GET", "/api/v1/videos", { token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(INVALID);
    }
    const doubled = await t.call("GET", "/api/v1/videos", { headers: { Authorization: `Bearer  ${ws.token}` } });
    expect(doubled.status).toBe(401);
    expect(doubled.body).toEqual(INVALID);
    const tabbed = await t.call("GET", "/api/v1/videos", { headers: { "X-API-Key": `${ws.token}\tx` } });
    expect(tabbed.status).toBe(401);
    // The genuine token still works.
    expect((await t.call("GET", "/api/v1/videos", { token: ws.token })).status).toBe(200);
  });

  test("a wrong prefix or another scheme", async () => {
    for (const headers of [
      { Authorization: `Bearer xyz_${ws.token.slice(4)}` },
      { Authorization: `Basic ${btoa("a:b")}` },
      { "X-API-Key": ADMIN_KEY },
    ] as Record<string, string>[]) {
      const res = await t.call("GET", "/api/v1/videos", { headers });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(INVALID);
    }
  });

  test("an expired token", async () => {
    const minted = await ws.mint(["videos:read"], { expires_in_days: 1 });
    await t.deps.sql`UPDATE api_tokens SET expires_at = now() - interval '1 minute' WHERE id = ${minted.id}`;
    const res = await t.call("GET", "/api/v1/videos", { token: minted.secret });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID);
  });

  test("a token that was used and then reached its expiry", async () => {
    let now = Date.now();
    const clocked = await testApp({ clock: { now: () => now } });
    const other = await clocked.workspace();
    const minted = await other.mint(["videos:read"], { expires_in_days: 1 });
    expect((await clocked.call("GET", "/api/v1/videos", { token: minted.secret })).status).toBe(200);
    now += 86_400_000 + 1000;
    const res = await clocked.call("GET", "/api/v1/videos", { token: minted.secret });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID);
    // A token without expiry keeps working at the same moment.
    expect((await clocked.call("GET", "/api/v1/videos", { token: other.token })).status).toBe(200);
  });

  test("revocation is immediate, even for a token verified a moment ago", async () => {
    const minted = await ws.mint(["videos:read", "videos:write"]);
    expect((await t.call("GET", "/api/v1/videos", { token: minted.secret })).status).toBe(200);
    const revoked = await t.call("DELETE", `/admin/v1/tokens/${minted.id}`, { token: ADMIN_KEY });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ revoked: true });
    for (const [method, path] of [
      ["GET", "/api/v1/videos"],
      ["POST", "/api/v1/videos"],
    ] as const) {
      const res = await t.call(method, path, { token: minted.secret, body: method === "POST" ? { title: "after revoke" } : undefined });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(INVALID);
    }
    const [{ n }] = await t.deps.sql`SELECT count(*)::int AS n FROM videos WHERE workspace_id = ${ws.id} AND title = 'after revoke'`;
    expect(n).toBe(0);
  });
});

describe("credentials", () => {
  test("Authorization: Bearer (any case of the scheme) and X-API-Key both work", async () => {
    for (const headers of [{ Authorization: `Bearer ${ws.token}` }, { Authorization: `bearer ${ws.token}` }, { "X-API-Key": ws.token }] as Record<
      string,
      string
    >[]) {
      const res = await t.call("GET", "/api/v1/videos", { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get("deprecation")).toBeNull();
    }
  });

  test("the token decides the workspace", async () => {
    const created = await t.call("POST", "/api/v1/videos", { headers: { "X-API-Key": ws.token }, body: { title: "via x-api-key" } });
    expect(created.status).toBe(201);
    expect(created.body.video.workspace_id).toBe(ws.id);
  });

  test("only a SHA-256 of a token is stored, never the plaintext", async () => {
    const minted = await ws.mint(["videos:read"]);
    expect(minted.secret).toMatch(/^flt_[A-Za-z0-9_-]{40,}$/);
    const [row] = await t.deps.sql`SELECT * FROM api_tokens WHERE id = ${minted.id}`;
    expect(row!.token_hash).toBe(sha256(minted.secret));
    expect(row!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(minted.secret);
    expect(stored).not.toContain(minted.secret.slice(4));
  });

  test("only a SHA-256 of the legacy key is stored", async () => {
    expect(ws.legacyKey).toMatch(/^flk_[A-Za-z0-9]{32,}$/);
    const [row] = await t.deps.sql`SELECT * FROM workspaces WHERE id = ${ws.id}`;
    expect(row!.legacy_key_hash).toBe(sha256(ws.legacyKey));
    expect(JSON.stringify(row)).not.toContain(ws.legacyKey.slice(4));
  });
});

describe("403 INSUFFICIENT_SCOPE", () => {
  test("names the scope the call needs", async () => {
    const reader = await ws.mint(["videos:read"]);
    const res = await t.call("POST", "/api/v1/videos", { token: reader.secret, body: { title: "nope" } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: { code: "INSUFFICIENT_SCOPE", message: expect.any(String), required: "videos:write" } });

    const writer = await ws.mint(["videos:write"]);
    const list = await t.call("GET", "/api/v1/videos", { token: writer.secret });
    expect(list.status).toBe(403);
    expect(list.body.error).toMatchObject({ code: "INSUFFICIENT_SCOPE", required: "videos:read" });

    const unrelated = await ws.mint(["events:write", "analytics:read", "conversions:write"]);
    for (const [method, path, required] of [
      ["GET", "/api/v1/videos/1", "videos:read"],
      ["GET", "/api/v1/folders", "videos:read"],
      ["POST", "/api/v1/folders", "videos:write"],
      ["DELETE", "/api/v1/videos/1", "videos:write"],
    ] as const) {
      const r = await t.call(method, path, { token: unrelated.secret, body: method === "POST" ? { name: "f" } : undefined });
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ code: "INSUFFICIENT_SCOPE", required });
    }
  });

  test("a scope failure changes nothing", async () => {
    const reader = await ws.mint(["videos:read"]);
    const before = await t.deps.sql`SELECT count(*)::int AS n FROM folders WHERE workspace_id = ${ws.id}`;
    expect((await t.call("POST", "/api/v1/folders", { token: reader.secret, body: { name: "x" } })).status).toBe(403);
    const after = await t.deps.sql`SELECT count(*)::int AS n FROM folders WHERE workspace_id = ${ws.id}`;
    expect(after[0]!.n).toBe(before[0]!.n);
  });
});

describe("legacy workspace key", () => {
  test("blanket access on /api/v1 with a Deprecation header", async () => {
    const key = ws.legacyKey;
    const list = await t.call("GET", "/api/v1/videos", { token: key });
    expect(list.status).toBe(200);
    expect(list.headers.get("deprecation")).toBeTruthy();
    const created = await t.call("POST", "/api/v1/videos", { headers: { "X-API-Key": key }, body: { title: "legacy" } });
    expect(created.status).toBe(201);
    expect(created.body.video.workspace_id).toBe(ws.id);
    expect(created.headers.get("deprecation")).toBeTruthy();
    const folder = await t.call("POST", "/api/v1/folders", { token: key, body: { name: "legacy folder" } });
    expect(folder.status).toBe(201);
    const deleted = await t.call("DELETE", `/api/v1/videos/${created.body.video.id}`, { token: key });
    expect(deleted.status).toBe(200);
    expect(deleted.headers.get("deprecation")).toBeTruthy();
  });

  test("a wrong legacy key is INVALID_TOKEN", async () => {
    const res = await t.call("GET", "/api/v1/videos", { token: ws.legacyKey + "0" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID);
  });

  test("a scoped token gets no Deprecation header", async () => {
    const res = await t.call("GET", "/api/v1/folders", { token: ws.token });
    expect(res.status).toBe(200);
    expect(res.headers.get("deprecation")).toBeNull();
  });
});

describe("503 AUTH_UNAVAILABLE", () => {
  let down: Deps | undefined;
  afterAll(async () => {
    await down?.sql.end({ timeout: 1 }).catch(() => {});
  });

  test("fails closed when token verification cannot reach its store", async () => {
    const sql = connectPostgres("postgres://postgres@127.0.0.1:1/none", { connectTimeoutSeconds: 1, max: 1 });
    down = await createDeps(t.deps.config, { sql, ch: t.deps.ch, blobs: t.deps.blobs });
    const app = createApp(down, { adminKey: ADMIN_KEY });
    for (const credential of [ws.token, ws.legacyKey]) {
      for (const [method, body] of [
        ["GET", undefined],
        ["POST", JSON.stringify({ title: "x" })],
      ] as const) {
        const response = await app.handle(
          new Request(`${BASE}/api/v1/videos`, { method, body, headers: { Authorization: `Bearer ${credential}`, "Content-Type": "application/json" } }),
        );
        expect(response.status).toBe(503);
        expect(await response.json()).toEqual({ error: { code: "AUTH_UNAVAILABLE", message: expect.any(String) } });
        expect(response.headers.get("retry-after")).toBeTruthy();
      }
    }
    // No token is still AUTH_REQUIRED: nothing needs the store to say so.
    const none = await app.handle(new Request(`${BASE}/api/v1/videos`));
    expect(none.status).toBe(401);
  }, 30_000);
});

describe("events host", () => {
  test("the legacy key is rejected outright with 403 INSUFFICIENT_SCOPE in the events-host shape", async () => {
    const res = await t.call("POST", "/v1/event", { token: ws.legacyKey, body: { event: "signup" } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: "INSUFFICIENT_SCOPE", message: expect.any(String) });
    expect(res.body.required).toBe("events:write");
  });

  test("no token → 401 AUTH_REQUIRED; a wrong token → 401 INVALID_TOKEN; a token without events:write → 403 naming it", async () => {
    const none = await t.call("POST", "/v1/event", { body: { event: "signup" } });
    expect(none.status).toBe(401);
    const wrong = await t.call("POST", "/v1/event", { token: "flt_wrong", body: { event: "signup" } });
    expect(wrong.status).toBe(401);
    const reader = await ws.mint(["videos:read"]);
    const scoped = await t.call("POST", "/v1/event", { token: reader.secret, body: { event: "signup" } });
    expect(scoped.status).toBe(403);
    expect(JSON.stringify(scoped.body)).toContain("events:write");
  });
});

describe("revocation across processes", () => {
  // Two app instances on one PostgreSQL server stand for two processes; only a server has them.
  test.skipIf(!process.env.DATABASE_URL)("a token revoked in one process fails at once in another that had it cached", async () => {
    const engines = await getEngines();
    const one = await testApp({ config: { databaseUrl: engines.databaseUrl } });
    const two = await testApp({ config: { databaseUrl: engines.databaseUrl } });
    try {
      const minted = await ws.mint(["videos:read"]);
      expect((await two.call("GET", "/api/v1/folders", { token: minted.secret })).status).toBe(200);
      expect((await one.call("DELETE", `/admin/v1/tokens/${minted.id}`, { token: ADMIN_KEY })).status).toBe(200);
      let status = 200;
      for (let i = 0; i < 20 && status === 200; i++) {
        await Bun.sleep(25);
        status = (await two.call("GET", "/api/v1/folders", { token: minted.secret })).status;
      }
      expect(status).toBe(401);
    } finally {
      await one.deps.close();
      await two.deps.close();
    }
  });
});
