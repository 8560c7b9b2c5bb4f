/** docs/api.md "Endpoints": `Idempotency-Key` on write endpoints. */
import { beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { appAndWorkspace, type TestApp, type TestResponse, type TestWorkspace, UNLIMITED } from "../helpers/app.ts";

let t: TestApp;
let ws: TestWorkspace;
beforeAll(async () => ({ t, ws } = await appAndWorkspace({ config: UNLIMITED })), 60_000);

const key = () => `key-${crypto.randomUUID()}`;

/** A key's row as the service keeps it for `POST /api/v1/videos` with `body` (still running, or done with `answer`). */
async function storeKey(k: string, body: unknown, state: "running" | "done", answer?: { status: number; body: unknown }) {
  const hash = createHash("sha256")
    .update(`POST /api/v1/videos\n${JSON.stringify(body)}`)
    .digest("hex");
  await t.deps.sql`
    INSERT INTO idempotency_keys (workspace_id, key, request_hash, state, response_status, response_body, expires_at)
    VALUES (${ws.id}, ${k}, ${hash}, ${state}, ${answer?.status ?? null}, ${answer ? t.deps.sql.json(answer.body as never) : null}, now() + interval '1 hour')`;
}
/** `POST /api/v1/videos` with `body` under the Idempotency-Key `k`. */
const postVideo = (k: string, body: unknown, token = ws.token) => t.call("POST", "/api/v1/videos", { token, body, headers: { "Idempotency-Key": k } });
/** `replay` answers `status` and `body` again, marked as a replay. */
function expectReplay(replay: TestResponse, status: number, body: unknown) {
  expect(replay.status).toBe(status);
  expect(replay.headers.get("idempotency-replayed")).toBe("true");
  expect(replay.body).toEqual(body);
}
const count = async (title: string, workspaceId = ws.id) =>
  (await t.deps.sql`SELECT count(*)::int AS n FROM videos WHERE workspace_id = ${workspaceId} AND title = ${title}`)[0]!.n as number;
const outboxCount = async (event: string, workspaceId = ws.id) =>
  (await t.deps.sql`SELECT count(*)::int AS n FROM outbox WHERE workspace_id = ${workspaceId} AND event = ${event}`)[0]!.n as number;

describe("Idempotency-Key", () => {
  test("POST /videos: a repeat replays the first response with Idempotency-Replayed: true and creates nothing", async () => {
    const k = key();
    const body = { title: `idem ${k}`, tags: ["x"] };
    const events = await outboxCount("video.created");
    const first = await postVideo(k, body);
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotency-replayed")).toBeNull();
    const again = await postVideo(k, body);
    expectReplay(again, 201, first.body);
    expect(await count(body.title)).toBe(1);
    expect(await outboxCount("video.created")).toBe(events + 1);
    // Without a key every call runs.
    await t.call("POST", "/api/v1/videos", { token: ws.token, body });
    expect(await count(body.title)).toBe(2);
  });

  test("a replay works for another token of the same workspace (the key belongs to the workspace)", async () => {
    const k = key();
    const body = { title: `shared ${k}` };
    const first = await postVideo(k, body);
    const other = await ws.mint(["videos:write"]);
    const again = await postVideo(k, body, other.secret);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(again.body.video.id).toBe(first.body.video.id);
    expect(await count(body.title)).toBe(1);
  });

  test("the same key with a different body is 422 in the validation shape and creates nothing", async () => {
    const k = key();
    const first = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: `a ${k}` }, headers: { "Idempotency-Key": k } });
    expect(first.status).toBe(201);
    const other = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: `b ${k}` }, headers: { "Idempotency-Key": k } });
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ message: expect.any(String), errors: { "Idempotency-Key": [expect.any(String)] } });
    expect(await count(`b ${k}`)).toBe(0);
    // The same key on another endpoint is another request too.
    const folder = await t.call("POST", "/api/v1/folders", { token: ws.token, body: { name: "f" }, headers: { "Idempotency-Key": k } });
    expect(folder.status).toBe(422);
  });

  test("a repeat while the first request is still running is 409", async () => {
    const k = key();
    const body = { title: `running ${k}` };
    // The first request's claim, exactly as the service writes it before running the handler.
    await storeKey(k, body, "running");
    const res = await postVideo(k, body);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    expect(await count(body.title)).toBe(0);
    // Once the first finishes (here: its answer is stored), the repeat replays that answer.
    const answer = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: `answer ${k}` } });
    await t.deps.sql`
      UPDATE idempotency_keys SET state = 'done', response_status = 201, response_body = ${t.deps.sql.json(answer.body as never)}
      WHERE workspace_id = ${ws.id} AND key = ${k}`;
    const replay = await postVideo(k, body);
    expectReplay(replay, 201, answer.body);
    expect(await count(body.title)).toBe(0);
  });

  test("a stored answer that no longer fits the response schema is a 500 (our fault), not a 422", async () => {
    const k = key();
    const body = { title: `stale ${k}` };
    await storeKey(k, body, "done", { status: 201, body: { video: { id: 1 } } });
    const res = await postVideo(k, body);
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe("INTERNAL_ERROR");
  });

  test("two concurrent requests with one key create one video", async () => {
    const k = key();
    const body = { title: `race ${k}` };
    const results = await Promise.all([0, 1, 2].map(() => postVideo(k, body)));
    for (const r of results) expect([201, 409]).toContain(r.status);
    expect(results.filter((r) => r.status === 201 && r.headers.get("idempotency-replayed") === null)).toHaveLength(1);
    expect(await count(body.title)).toBe(1);
  });

  test("keys are per workspace: the same key in another workspace runs normally", async () => {
    const other = await t.workspace();
    const k = key();
    const body = { title: `per ws ${k}` };
    const a = await postVideo(k, body);
    const b = await postVideo(k, body, other.token);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get("idempotency-replayed")).toBeNull();
    expect(b.body.video.id).not.toBe(a.body.video.id);
    expect(b.body.video.workspace_id).toBe(other.id);
    expect(await count(body.title, ws.id)).toBe(1);
    expect(await count(body.title, other.id)).toBe(1);
  });

  test("a 4xx first answer (FOLDER_NOT_FOUND) is replayed, even after the folder would exist", async () => {
    const k = key();
    const body = { title: `folder ${k}`, folder_id: 987654321 };
    const first = await postVideo(k, body);
    expect(first.status).toBe(422);
    expect(first.body.error.code).toBe("FOLDER_NOT_FOUND");
    const again = await postVideo(k, body);
    expectReplay(again, 422, first.body);
    expect(await count(body.title)).toBe(0);
  });

  test("PATCH /videos/{id}: replayed, and a later change is not undone by the replay", async () => {
    const created = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "patch me" } });
    const id = created.body.video.id;
    const k = key();
    const first = await t.call("PATCH", `/api/v1/videos/${id}`, { token: ws.token, body: { title: "patched" }, headers: { "Idempotency-Key": k } });
    expect(first.status).toBe(200);
    await t.call("PATCH", `/api/v1/videos/${id}`, { token: ws.token, body: { title: "patched later" } });
    const again = await t.call("PATCH", `/api/v1/videos/${id}`, { token: ws.token, body: { title: "patched" }, headers: { "Idempotency-Key": k } });
    expectReplay(again, 200, first.body);
    const [row] = await t.deps.sql`SELECT title FROM videos WHERE id = ${id}`;
    expect(row!.title).toBe("patched later");
  });

  test("POST /videos/{id}/duplicate: a repeat makes no second copy", async () => {
    const created = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: `dup ${crypto.randomUUID()}` } });
    const id = created.body.video.id;
    const k = key();
    const first = await t.call("POST", `/api/v1/videos/${id}/duplicate`, { token: ws.token, headers: { "Idempotency-Key": k } });
    expect(first.status).toBe(201);
    const again = await t.call("POST", `/api/v1/videos/${id}/duplicate`, { token: ws.token, headers: { "Idempotency-Key": k } });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(again.body.video.id).toBe(first.body.video.id);
    expect(await count(`${created.body.video.title} (copy)`)).toBe(1);
  });

  test("DELETE /videos/{id}: a repeat replays {deleted: true} (not a 404) and fires video.deleted once", async () => {
    const created = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "delete me" } });
    const id = created.body.video.id;
    const k = key();
    const first = await t.call("DELETE", `/api/v1/videos/${id}`, { token: ws.token, headers: { "Idempotency-Key": k } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ deleted: true });
    const again = await t.call("DELETE", `/api/v1/videos/${id}`, { token: ws.token, headers: { "Idempotency-Key": k } });
    expectReplay(again, 200, { deleted: true });
    const rows = await t.deps.sql`SELECT 1 FROM outbox WHERE workspace_id = ${ws.id} AND event = 'video.deleted' AND (data->>'video_id')::bigint = ${id}`;
    expect(rows).toHaveLength(1);
    // Without the key, the video is gone.
    expect((await t.call("DELETE", `/api/v1/videos/${id}`, { token: ws.token })).status).toBe(404);
  });

  test("POST /folders honours it too", async () => {
    const k = key();
    const name = `folder ${k}`;
    const first = await t.call("POST", "/api/v1/folders", { token: ws.token, body: { name }, headers: { "Idempotency-Key": k } });
    const again = await t.call("POST", "/api/v1/folders", { token: ws.token, body: { name }, headers: { "Idempotency-Key": k } });
    expect(first.status).toBe(201);
    expectReplay(again, 201, first.body);
    const [{ n }] = await t.deps.sql`SELECT count(*)::int AS n FROM folders WHERE workspace_id = ${ws.id} AND name = ${name}`;
    expect(n).toBe(1);
  });

  test("the first response is kept 24 hours", async () => {
    const k = key();
    await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: `ttl ${k}` }, headers: { "Idempotency-Key": k } });
    const [row] = await t.deps.sql`SELECT created_at, expires_at FROM idempotency_keys WHERE workspace_id = ${ws.id} AND key = ${k}`;
    const hours = (row!.expires_at.getTime() - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24.01);
  });

  test("an expired key runs again", async () => {
    const k = key();
    const body = { title: `expired ${k}` };
    await postVideo(k, body);
    await t.deps.sql`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE workspace_id = ${ws.id} AND key = ${k}`;
    const again = await postVideo(k, body);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotency-replayed")).toBeNull();
    expect(await count(body.title)).toBe(2);
  });

  test("a key longer than 255 characters is 422", async () => {
    const res = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "long key" }, headers: { "Idempotency-Key": "k".repeat(256) } });
    expect(res.status).toBe(422);
    expect(res.body.errors["Idempotency-Key"]).toBeArray();
    expect(await count("long key")).toBe(0);
  });
});
