/**
 * docs/api.md "What the service does" 9: the token decides the workspace. For every
 * /api/v1 route, a credential of workspace B (scoped token or legacy key) never
 * sees or changes workspace A's rows.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";

let t: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;
let video: Record<string, any>;
let folder: Record<string, any>;
let snapshot: Awaited<ReturnType<typeof rowsOfA>>;

const rowsOfA = async () => ({
  videos: [...(await t.deps.sql`SELECT * FROM videos WHERE workspace_id = ${a.id} ORDER BY id`)],
  folders: [...(await t.deps.sql`SELECT * FROM folders WHERE workspace_id = ${a.id} ORDER BY id`)],
  drafts: [...(await t.deps.sql`SELECT d.* FROM video_drafts d JOIN videos v ON v.id = d.video_id WHERE v.workspace_id = ${a.id}`)],
});

beforeAll(async () => {
  t = await testApp({ config: { limits: { readsPerMinute: 100_000, writesPerMinute: 100_000 } } });
  a = await t.workspace();
  b = await t.workspace();
  folder = (await t.call("POST", "/api/v1/folders", { token: a.token, body: { name: "A's folder" } })).body.folder;
  video = (await t.call("POST", "/api/v1/videos", { token: a.token, body: { title: "A's video", folder_id: folder.id, tags: ["a"] } })).body.video;
  await t.deps
    .sql`INSERT INTO video_drafts (video_id, settings) VALUES (${video.id}, ${t.deps.sql.json({ style_options: { main_color: "#123456" } } as never)})`;
  // B owns rows too, so "empty" is never the reason B sees nothing of A.
  await t.call("POST", "/api/v1/folders", { token: b.token, body: { name: "B's folder" } });
  await t.call("POST", "/api/v1/videos", { token: b.token, body: { title: "B's video" } });
  snapshot = await rowsOfA();
}, 60_000);

describe("workspace B never reaches workspace A", () => {
  // B's credentials: a scoped token with every scope, and B's legacy key.
  for (const [kind, credential] of [
    ["token", () => b.token],
    ["legacy key", () => b.legacyKey],
  ] as const) {
    describe(`with B's ${kind}`, () => {
      test("GET /videos lists none of A's videos", async () => {
        const res = await t.call("GET", "/api/v1/videos?per_page=100", { token: credential() });
        expect(res.status).toBe(200);
        expect(res.body.total).toBe(res.body.data.length);
        expect(res.body.data.length).toBeGreaterThan(0);
        for (const item of res.body.data) expect(item.workspace_id).toBe(b.id);
        expect(res.body.data.map((v: any) => v.id)).not.toContain(video.id);
        // Filtering by A's folder finds nothing either.
        const filtered = await t.call("GET", `/api/v1/videos?folder_id=${folder.id}`, { token: credential() });
        expect(filtered.status).toBe(200);
        expect(filtered.body.data).toEqual([]);
        expect(filtered.body.total).toBe(0);
      });

      test("GET /videos/{A's id}, /settings → 404 NOT_FOUND; /status → 404 VIDEO_NOT_FOUND", async () => {
        for (const path of [`/api/v1/videos/${video.id}`, `/api/v1/videos/${video.id}/settings`]) {
          const res = await t.call("GET", path, { token: credential() });
          expect(res.status).toBe(404);
          expect(res.body).toEqual({ error: { code: "NOT_FOUND", message: "Video not found" } });
          expect(res.text).not.toContain(video.code);
        }
        const status = await t.call("GET", `/api/v1/videos/${video.id}/status`, { token: credential() });
        expect(status.status).toBe(404);
        expect(status.body.error.code).toBe("VIDEO_NOT_FOUND");
        expect(status.text).not.toContain(video.code);
      });

      test("PATCH, duplicate and DELETE of A's video → 404 and A's rows are unchanged", async () => {
        const attempts = [
          ["PATCH", `/api/v1/videos/${video.id}`, { title: "hijacked", tags: [], folder_id: null }],
          ["PATCH", `/api/v1/videos/${video.id}`, { title: "hijacked" }],
          ["POST", `/api/v1/videos/${video.id}/duplicate`, undefined],
          ["DELETE", `/api/v1/videos/${video.id}`, undefined],
        ] as const;
        for (const [method, path, body] of attempts) {
          const res = await t.call(method, path, { token: credential(), body });
          expect(res.status).toBe(404);
          expect(res.body).toEqual({ message: `No query results for model [Video] ${video.id}` });
        }
        expect(await rowsOfA()).toEqual(snapshot);
        const copies = await t.deps.sql`SELECT 1 FROM videos WHERE title = ${"A's video (copy)"}`;
        expect(copies).toHaveLength(0);
        const events = await t.deps.sql`SELECT 1 FROM outbox WHERE event = 'video.deleted' AND (data->>'video_id')::bigint = ${video.id}`;
        expect(events).toHaveLength(0);
      });

      test("PATCH B's own video into A's folder → 422 FOLDER_NOT_FOUND", async () => {
        const own = (await t.call("POST", "/api/v1/videos", { token: credential(), body: { title: "B's own" } })).body.video;
        const res = await t.call("PATCH", `/api/v1/videos/${own.id}`, { token: credential(), body: { folder_id: folder.id } });
        expect(res.status).toBe(422);
        expect(res.body.error.code).toBe("FOLDER_NOT_FOUND");
        const [row] = await t.deps.sql`SELECT folder_id FROM videos WHERE id = ${own.id}`;
        expect(row!.folder_id).toBeNull();
      });

      test("POST /videos into A's folder → 422 FOLDER_NOT_FOUND; copy_from A's video copies nothing and lands in B", async () => {
        const intoFolder = await t.call("POST", "/api/v1/videos", { token: credential(), body: { title: "sneaky", folder_id: folder.id } });
        expect(intoFolder.status).toBe(422);
        expect(intoFolder.body.error.code).toBe("FOLDER_NOT_FOUND");
        const copied = await t.call("POST", "/api/v1/videos", { token: credential(), body: { title: "copy attempt", copy_from: video.id } });
        expect(copied.status).toBe(201);
        expect(copied.body.video.workspace_id).toBe(b.id);
        expect(await rowsOfA()).toEqual(snapshot);
      });

      test("GET /folders lists none of A's folders; POST /folders under A's folder → 422 FOLDER_NOT_FOUND", async () => {
        const list = await t.call("GET", "/api/v1/folders", { token: credential() });
        expect(list.status).toBe(200);
        expect(list.body.folders.length).toBeGreaterThan(0);
        expect(list.body.folders.map((f: any) => f.id)).not.toContain(folder.id);
        expect(list.text).not.toContain("A's folder");
        const nested = await t.call("POST", "/api/v1/folders", { token: credential(), body: { name: "inside A", parent_id: folder.id } });
        expect(nested.status).toBe(422);
        expect(nested.body.error.code).toBe("FOLDER_NOT_FOUND");
        expect(await t.deps.sql`SELECT 1 FROM folders WHERE name = 'inside A'`).toHaveLength(0);
        expect(await rowsOfA()).toEqual(snapshot);
      });

      test("an Idempotency-Key A used does not replay A's answer to B", async () => {
        const key = `cross-${crypto.randomUUID()}`;
        const forA = await t.call("POST", "/api/v1/videos", { token: a.token, body: { title: "keyed" }, headers: { "Idempotency-Key": key } });
        const forB = await t.call("POST", "/api/v1/videos", { token: credential(), body: { title: "keyed" }, headers: { "Idempotency-Key": key } });
        expect(forB.status).toBe(201);
        expect(forB.headers.get("idempotency-replayed")).toBeNull();
        expect(forB.body.video.workspace_id).toBe(b.id);
        expect(forB.body.video.id).not.toBe(forA.body.video.id);
        await t.call("DELETE", `/api/v1/videos/${forA.body.video.id}`, { token: a.token });
        snapshot = await rowsOfA();
      });
    });
  }

  test("A still sees and owns everything it had", async () => {
    const read = await t.call("GET", `/api/v1/videos/${video.id}`, { token: a.token });
    expect(read.status).toBe(200);
    expect(read.body.video).toMatchObject({ title: "A's video", folder_id: folder.id, tags: ["a"], workspace_id: a.id });
    const folders = await t.call("GET", "/api/v1/folders", { token: a.token });
    expect(folders.body.folders).toEqual([{ ...folder, videos_count: 1 }]);
  });
});
