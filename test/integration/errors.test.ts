/**
 * README "Errors": a Postgres failure becomes its documented answer, never an
 * opaque 500. The statements below really run on this run's PostgreSQL (or
 * PGlite); the answers come from the app's own error renderer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { createApp } from "../../server/app.ts";
import { errorsPlugin } from "../../server/http/errors-plugin.ts";
import { createLog } from "../../server/log.ts";
import { connectPostgres, type Sql } from "../../server/storage/postgres.ts";
import { appAndWorkspace, ADMIN_KEY, BASE, type TestApp, type TestWorkspace } from "../helpers/app.ts";

let t: TestApp;
let ws: TestWorkspace;
let dead: Sql;

beforeAll(async () => {
  ({ t, ws } = await appAndWorkspace());
  dead = connectPostgres("postgres://postgres@127.0.0.1:1/none", { connectTimeoutSeconds: 1, max: 1 });
}, 60_000);

afterAll(async () => {
  await dead.end({ timeout: 1 }).catch(() => {});
});

/** A route per failure, each running real SQL that fails the way the name says. */
function statements(sql: Sql) {
  const run = (query: () => PromiseLike<unknown>) => async () => {
    await query();
    return { ok: true };
  };
  const twice = () =>
    sql.begin(async (tx) => {
      await tx`CREATE TEMP TABLE once (id int PRIMARY KEY) ON COMMIT DROP`;
      await tx`INSERT INTO once VALUES (1)`;
      await tx`INSERT INTO once VALUES (1)`;
    });
  return new Elysia()
    .use(errorsPlugin(createLog("silent")))
    .post("/api/v1/unique", run(twice))
    .post(
      "/api/v1/serialization",
      run(() => sql`DO $$ BEGIN RAISE EXCEPTION 'could not serialize access' USING ERRCODE = 'serialization_failure'; END $$`),
    )
    .post(
      "/api/v1/deadlock",
      run(() => sql`DO $$ BEGIN RAISE EXCEPTION 'deadlock detected' USING ERRCODE = 'deadlock_detected'; END $$`),
    )
    .post(
      "/api/v1/data",
      run(() => sql`SELECT ${"2147483648"}::int AS n`),
    )
    .post("/v1/unique", run(twice))
    .post(
      "/api/v1/lost",
      run(() => dead`SELECT 1`),
    )
    .post(
      "/api/v1/bug",
      run(() => sql`SELECT no_such_column FROM workspaces`),
    );
}

const post = async (app: ReturnType<typeof statements>, path: string) => {
  const response = await app.handle(new Request(BASE + path, { method: "POST" }));
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
};

describe("Postgres failures at the storage boundary", () => {
  test("a unique violation is 409 CONFLICT", async () => {
    const res = await post(statements(t.deps.sql), "/api/v1/unique");
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: { code: "CONFLICT", message: expect.any(String) } });
  });

  test("a serialization failure and a deadlock are 503 DATABASE_BUSY with Retry-After", async () => {
    for (const path of ["/api/v1/serialization", "/api/v1/deadlock"]) {
      const res = await post(statements(t.deps.sql), path);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: { code: "DATABASE_BUSY", message: expect.any(String) } });
      expect(res.headers.get("retry-after")).toBe("1");
    }
  });

  test("a lost connection is 503 DATABASE_UNAVAILABLE with Retry-After", async () => {
    const res = await post(statements(t.deps.sql), "/api/v1/lost");
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("DATABASE_UNAVAILABLE");
    expect(res.headers.get("retry-after")).toBe("5");
  }, 20_000);

  test("a data error (22xxx) is a 422 in the validation shape", async () => {
    const res = await post(statements(t.deps.sql), "/api/v1/data");
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: expect.any(String), errors: { body: [expect.any(String)] } });
  });

  test("on the events host a coded answer takes the events host's shape", async () => {
    const res = await post(statements(t.deps.sql), "/v1/unique");
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "CONFLICT", message: expect.any(String) });
  });

  test("any other failure stays an opaque 500 INTERNAL_ERROR with a request id", async () => {
    const res = await post(statements(t.deps.sql), "/api/v1/bug");
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe("INTERNAL_ERROR");
    expect(res.body.error.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(res.body)).not.toContain("no_such_column");
  });

  test("a real route whose database went away answers 503 DATABASE_UNAVAILABLE, not 500", async () => {
    // The token is checked by the live verifier; the route's own query meets the dead pool.
    const app = createApp({ ...t.deps, sql: dead }, { adminKey: ADMIN_KEY });
    const response = await app.handle(new Request(`${BASE}/api/v1/folders`, { headers: { Authorization: `Bearer ${ws.token}` } }));
    expect(response.status).toBe(503);
    expect(((await response.json()) as any).error.code).toBe("DATABASE_UNAVAILABLE");
  }, 20_000);
});

describe("the events host", () => {
  test("an unknown /v1 route and a refused token are written {error: CODE, message}", async () => {
    const unknown = await t.call("POST", "/v1/nothing-here", { body: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: "NOT_FOUND", message: expect.any(String) });
    const refused = await t.call("POST", "/v1/event", { token: "flt_" + "x".repeat(43), body: { event: "signup" } });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: "INVALID_TOKEN", message: expect.any(String) });
  });
});
