import { beforeAll, describe, expect, test } from "bun:test";
import { FIXTURE_PLAYER } from "../fixtures/player/sources.ts";
import { testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";

let t: TestApp;
let ws: TestWorkspace;

beforeAll(async () => {
  t = await testApp({ config: { limits: { readsPerMinute: 100_000, writesPerMinute: 100_000 }, playerSources: FIXTURE_PLAYER } });
  ws = await t.workspace();
}, 120_000);

async function video(title = "Course", token = ws.token) {
  const res = await t.call("POST", "/api/v1/videos", { token, body: { title } });
  expect(res.status).toBe(201);
  return res.body.video as { id: number; code: string };
}

async function playlist(body: Record<string, unknown> = {}, token = ws.token) {
  const v = await video("Course", token);
  const res = await t.call("POST", "/api/v1/playlists", { token, body: { video_id: v.id, ...body } });
  expect(res.status).toBe(201);
  return { video: v, playlist: res.body.playlist };
}

const READ_KEYS = ["auto_advance", "item_count", "lesson_navigation", "loop", "playback_mode", "playlist_code", "title", "video_code", "video_id"];
const stored = async (id: number) => (await t.deps.sql`SELECT settings -> 'playlist_options' AS p FROM videos WHERE id = ${id}`)[0]!.p;

describe("create and read", () => {
  test("POST seeds a playlist with defaults; reads carry exactly the read shape (no playlist_chrome)", async () => {
    const { video: v, playlist: p } = await playlist({
      playlist_code: "course-1",
      items: [
        { video_code: "a", title: "A" },
        { video_code: "b", title: "B" },
      ],
      playlist_chrome: "button",
    });
    expect(p).toEqual({
      video_id: v.id,
      video_code: v.code,
      title: "Course",
      playback_mode: "linear",
      playlist_code: "course-1",
      item_count: 2,
      auto_advance: true,
      loop: false,
      lesson_navigation: "sidebar",
    });
    expect(Object.keys(p).sort()).toEqual(READ_KEYS);
    // playlist_chrome is stored (writable) but absent from every read.
    expect((await stored(v.id)).playlist_chrome).toBe("button");
    const one = await t.call("GET", `/api/v1/playlists/${v.id}`, { token: ws.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ playlist: p });
    const list = await t.call("GET", "/api/v1/playlists", { token: ws.token });
    expect(Object.keys(list.body).sort()).toEqual(["current_page", "data", "per_page", "total"]);
    expect(list.body.data).toContainEqual(p);
    for (const entry of list.body.data) expect(entry).not.toHaveProperty("playlist_chrome");
    const items = await t.call("GET", `/api/v1/playlists/${v.id}/videos`, { token: ws.token });
    expect(items.body).toEqual({
      items: [
        { video_code: "a", title: "A", lesson_label: null, duration_s: null, thumb_url: null },
        { video_code: "b", title: "B", lesson_label: null, duration_s: null, thumb_url: null },
      ],
      total: 2,
    });
  });

  test("auto_advance_delay_ms and lesson_navigation are not applied at creation, only by PATCH", async () => {
    const { video: v } = await playlist({ auto_advance_delay_ms: 100, lesson_navigation: "none" });
    expect(await stored(v.id)).toMatchObject({ auto_advance_delay_ms: 3000, lesson_navigation: "sidebar" });
    const res = await t.call("PATCH", `/api/v1/playlists/${v.id}`, {
      token: ws.token,
      body: { auto_advance_delay_ms: 100, lesson_navigation: "none", playback_mode: "course", loop: true, playlist_chrome: "button" },
    });
    expect(res.status).toBe(200);
    expect(res.body.playlist).toMatchObject({ lesson_navigation: "none", playback_mode: "course", loop: true });
    expect(res.body.playlist).not.toHaveProperty("playlist_chrome");
    expect(await stored(v.id)).toMatchObject({ auto_advance_delay_ms: 100, lesson_navigation: "none", playlist_chrome: "button" });
  });

  test("PATCH validates its fields and does not touch items", async () => {
    const { video: v } = await playlist({ items: [{ video_code: "a", title: "A" }] });
    for (const body of [
      { auto_advance_delay_ms: 30001 },
      { auto_advance_delay_ms: -1 },
      { lesson_navigation: "tabs" },
      { playback_mode: "random" },
      { playlist_code: "x".repeat(129) },
      { playlist_chrome: "sidebar" },
    ]) {
      const res = await t.call("PATCH", `/api/v1/playlists/${v.id}`, { token: ws.token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(Object.keys(body));
    }
    const res = await t.call("PATCH", `/api/v1/playlists/${v.id}`, { token: ws.token, body: { items: [], auto_advance: false } });
    expect(res.status).toBe(200);
    expect(res.body.playlist).toMatchObject({ item_count: 1, auto_advance: false });
  });

  test("POST validates its fields; an unknown video is 404", async () => {
    const v = await video();
    for (const body of [
      {},
      { video_id: "x" },
      { video_id: v.id, playback_mode: "shuffle" },
      { video_id: v.id, items: [{ title: "no code" }] },
      { video_id: v.id, items: [{ video_code: "x".repeat(65) }] },
      { video_id: v.id, playlist_code: "x".repeat(129) },
    ]) {
      const res = await t.call("POST", "/api/v1/playlists", { token: ws.token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    const missing = await t.call("POST", "/api/v1/playlists", { token: ws.token, body: { video_id: 999_999_999 } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: "No query results for model [Video] 999999999" });
  });

  test("unknown and non-numeric playlist ids are 404 in the model shape", async () => {
    for (const [method, path] of [
      ["GET", "/api/v1/playlists/999999999"],
      ["GET", "/api/v1/playlists/999999999/videos"],
      ["PATCH", "/api/v1/playlists/999999999"],
      ["DELETE", "/api/v1/playlists/999999999"],
      ["POST", "/api/v1/playlists/999999999/videos"],
      ["PATCH", "/api/v1/playlists/999999999/videos/abc"],
      ["DELETE", "/api/v1/playlists/999999999/videos/abc"],
    ] as const) {
      const res = await t.call(method, path, { token: ws.token, body: method === "POST" ? { video_code: "a" } : method === "PATCH" ? {} : undefined });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ message: "No query results for model [Video] 999999999" });
    }
    expect((await t.call("GET", "/api/v1/playlists/abc", { token: ws.token })).status).toBe(404);
    // A video without a playlist has none to read.
    const plain = await video();
    expect((await t.call("GET", `/api/v1/playlists/${plain.id}`, { token: ws.token })).status).toBe(404);
  });
});

describe("enabled flag", () => {
  test("DELETE disables softly: the playlist leaves the list, items are kept; POST re-enables applying only fields sent", async () => {
    const { video: v } = await playlist({ playback_mode: "course", loop: true, items: [{ video_code: "a", title: "A" }] });
    const del = await t.call("DELETE", `/api/v1/playlists/${v.id}`, { token: ws.token });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ deleted: true });
    expect((await stored(v.id)).enabled).toBe(false);
    expect((await stored(v.id)).items).toHaveLength(1);
    const list = await t.call("GET", "/api/v1/playlists", { token: ws.token });
    expect(list.body.data.map((p: { video_id: number }) => p.video_id)).not.toContain(v.id);
    expect((await t.call("GET", `/api/v1/playlists/${v.id}`, { token: ws.token })).status).toBe(404);

    const again = await t.call("POST", "/api/v1/playlists", { token: ws.token, body: { video_id: v.id, auto_advance: false } });
    expect(again.status).toBe(201);
    // Only auto_advance was sent: mode, loop and items are as they were.
    expect(again.body.playlist).toMatchObject({ playback_mode: "course", loop: true, auto_advance: false, item_count: 1 });
    // POST on an enabled playlist is not an error either.
    const third = await t.call("POST", "/api/v1/playlists", { token: ws.token, body: { video_id: v.id, playback_mode: "linear" } });
    expect(third.status).toBe(201);
    expect(third.body.playlist).toMatchObject({ playback_mode: "linear", loop: true, item_count: 1 });
  });

  test("disabling recompiles the container so the chrome stops showing", async () => {
    const { video: v } = await playlist({ items: [{ video_code: "a", title: "A" }] });
    const bundle = async () => new Response((await t.deps.blobs.cdnA.get(`p/${v.code}.js`))!.body).text();
    expect(await bundle()).toContain("FIXTURE_PLAYLIST_CODE");
    await t.call("DELETE", `/api/v1/playlists/${v.id}`, { token: ws.token });
    expect(await bundle()).not.toContain("FIXTURE_PLAYLIST_CODE");
    // Playlist writes are not deploys: no version, no event.
    expect(await t.deps.sql`SELECT 1 FROM deploy_versions WHERE workspace_video_id = ${v.id}`).toHaveLength(0);
    expect(await t.deps.sql`SELECT 1 FROM outbox WHERE event = 'video.settings.deployed' AND (data ->> 'video_id')::bigint = ${v.id}`).toHaveLength(0);
  });

  test("DELETE honours Idempotency-Key: the repeat is replayed", async () => {
    const { video: v } = await playlist();
    const headers = { "Idempotency-Key": `disable-${v.id}` };
    const first = await t.call("DELETE", `/api/v1/playlists/${v.id}`, { token: ws.token, headers });
    const second = await t.call("DELETE", `/api/v1/playlists/${v.id}`, { token: ws.token, headers });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ deleted: true });
    expect(second.headers.get("idempotency-replayed")).toBe("true");
    // Without the key, disabling a disabled playlist finds nothing.
    expect((await t.call("DELETE", `/api/v1/playlists/${v.id}`, { token: ws.token })).status).toBe(404);
  });

  test("the list is paginated and holds only enabled playlists of this workspace", async () => {
    const own = await t.workspace();
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await playlist({}, own.token)).video.id);
    await video("no playlist", own.token);
    const page = await t.call("GET", "/api/v1/playlists?per_page=2", { token: own.token });
    expect(page.body).toMatchObject({ current_page: 1, per_page: 2, total: 3 });
    expect(page.body.data.map((p: { video_id: number }) => p.video_id)).toEqual(ids.slice(0, 2));
    const page2 = await t.call("GET", "/api/v1/playlists?per_page=2&page=2", { token: own.token });
    expect(page2.body.data.map((p: { video_id: number }) => p.video_id)).toEqual([ids[2]]);
  });
});

describe("items", () => {
  test("add appends, duplicates allowed; 201 {items}", async () => {
    const { video: v } = await playlist({ items: [{ video_code: "a", title: "A" }] });
    const add = await t.call("POST", `/api/v1/playlists/${v.id}/videos`, {
      token: ws.token,
      body: { video_code: "b", title: "B", lesson_label: "Lesson 2", duration_s: 90, thumb_url: "https://img.example/b.jpg" },
    });
    expect(add.status).toBe(201);
    expect(add.body.items).toEqual([
      { video_code: "a", title: "A", lesson_label: null, duration_s: null, thumb_url: null },
      { video_code: "b", title: "B", lesson_label: "Lesson 2", duration_s: 90, thumb_url: "https://img.example/b.jpg" },
    ]);
    const dup = await t.call("POST", `/api/v1/playlists/${v.id}/videos`, { token: ws.token, body: { video_code: "a" } });
    expect(dup.status).toBe(201);
    expect(dup.body.items.map((i: { video_code: string }) => i.video_code)).toEqual(["a", "b", "a"]);
    expect((await t.call("GET", `/api/v1/playlists/${v.id}`, { token: ws.token })).body.playlist.item_count).toBe(3);
  });

  test("add validates its fields", async () => {
    const { video: v } = await playlist();
    for (const body of [
      {},
      { video_code: "" },
      { video_code: "x".repeat(65) },
      { video_code: "a", thumb_url: "not a url" },
      { video_code: "a", thumb_url: "https://x/" + "y".repeat(2048) },
      { video_code: "a", duration_s: 1.5 },
    ]) {
      const res = await t.call("POST", `/api/v1/playlists/${v.id}/videos`, { token: ws.token, body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
    }
    expect((await stored(v.id)).items).toEqual([]);
  });

  test("update addresses items by code; unknown code is 404 NOT_FOUND; numeric id is 404", async () => {
    const { video: v } = await playlist({
      items: [
        { video_code: "a", title: "A" },
        { video_code: "b", title: "B" },
      ],
    });
    const res = await t.call("PATCH", `/api/v1/playlists/${v.id}/videos/b`, { token: ws.token, body: { title: "Bee", duration_s: 12, lesson_label: "L2" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: [
        { video_code: "a", title: "A", lesson_label: null, duration_s: null, thumb_url: null },
        { video_code: "b", title: "Bee", lesson_label: "L2", duration_s: 12, thumb_url: null },
      ],
      total: 2,
    });
    const unknown = await t.call("PATCH", `/api/v1/playlists/${v.id}/videos/zzz`, { token: ws.token, body: { title: "x" } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: "NOT_FOUND", message: "Item not found." } });
    const numeric = await t.call("PATCH", `/api/v1/playlists/${v.id}/videos/${v.id}`, { token: ws.token, body: { title: "x" } });
    expect(numeric.status).toBe(404);
    const zero = await t.call("PATCH", `/api/v1/playlists/${v.id}/videos/a`, { token: ws.token, body: { duration_s: 0 } });
    expect(zero.status).toBe(422);
    expect(Object.keys(zero.body.errors)).toEqual(["duration_s"]);
  });

  test("update honours Idempotency-Key", async () => {
    const { video: v } = await playlist({ items: [{ video_code: "a", title: "A" }] });
    const headers = { "Idempotency-Key": `item-${v.id}` };
    const first = await t.call("PATCH", `/api/v1/playlists/${v.id}/videos/a`, { token: ws.token, headers, body: { title: "One" } });
    const second = await t.call("PATCH", `/api/v1/playlists/${v.id}/videos/a`, { token: ws.token, headers, body: { title: "One" } });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotency-replayed")).toBe("true");
    const reused = await t.call("PATCH", `/api/v1/playlists/${v.id}/videos/a`, { token: ws.token, headers, body: { title: "Two" } });
    expect(reused.status).toBe(422);
  });

  test("remove by code answers the remaining items; an unknown code leaves the list unchanged with 200; numeric id is 404", async () => {
    const { video: v } = await playlist({
      items: [
        { video_code: "a", title: "A" },
        { video_code: "b", title: "B" },
      ],
    });
    const gone = await t.call("DELETE", `/api/v1/playlists/${v.id}/videos/a`, { token: ws.token });
    expect(gone.status).toBe(200);
    expect(gone.body.items.map((i: { video_code: string }) => i.video_code)).toEqual(["b"]);
    const unknown = await t.call("DELETE", `/api/v1/playlists/${v.id}/videos/nope`, { token: ws.token });
    expect(unknown.status).toBe(200);
    expect(unknown.body.items.map((i: { video_code: string }) => i.video_code)).toEqual(["b"]);
    expect((await t.call("DELETE", `/api/v1/playlists/${v.id}/videos/123`, { token: ws.token })).status).toBe(404);
  });
});

describe("scopes and workspaces", () => {
  test("reads need videos:read, writes need videos:write", async () => {
    const { video: v } = await playlist({ items: [{ video_code: "a" }] });
    const reader = await ws.mint(["videos:read"]);
    const writer = await ws.mint(["videos:write"]);
    for (const path of ["/api/v1/playlists", `/api/v1/playlists/${v.id}`, `/api/v1/playlists/${v.id}/videos`]) {
      expect((await t.call("GET", path, { token: reader.secret })).status, path).toBe(200);
      const denied = await t.call("GET", path, { token: writer.secret });
      expect(denied.status, path).toBe(403);
      expect(denied.body.error.required).toBe("videos:read");
    }
    for (const [method, path, body] of [
      ["POST", "/api/v1/playlists", { video_id: v.id }],
      ["PATCH", `/api/v1/playlists/${v.id}`, { loop: true }],
      ["DELETE", `/api/v1/playlists/${v.id}`, undefined],
      ["POST", `/api/v1/playlists/${v.id}/videos`, { video_code: "b" }],
      ["PATCH", `/api/v1/playlists/${v.id}/videos/a`, { title: "x" }],
      ["DELETE", `/api/v1/playlists/${v.id}/videos/a`, undefined],
    ] as const) {
      const res = await t.call(method, path, { token: reader.secret, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.required).toBe("videos:write");
    }
  });

  test("another workspace gets 404 on every route, never sees the playlist in its list, and changes nothing", async () => {
    const { video: v } = await playlist({ items: [{ video_code: "a", title: "A" }] });
    const before = await stored(v.id);
    const other = await t.workspace();
    for (const [method, path, body] of [
      ["GET", `/api/v1/playlists/${v.id}`, undefined],
      ["GET", `/api/v1/playlists/${v.id}/videos`, undefined],
      ["POST", "/api/v1/playlists", { video_id: v.id }],
      ["PATCH", `/api/v1/playlists/${v.id}`, { loop: true }],
      ["DELETE", `/api/v1/playlists/${v.id}`, undefined],
      ["POST", `/api/v1/playlists/${v.id}/videos`, { video_code: "b" }],
      ["PATCH", `/api/v1/playlists/${v.id}/videos/a`, { title: "x" }],
      ["DELETE", `/api/v1/playlists/${v.id}/videos/a`, undefined],
    ] as const) {
      const res = await t.call(method, path, { token: other.token, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ message: `No query results for model [Video] ${v.id}` });
    }
    const list = await t.call("GET", "/api/v1/playlists", { token: other.token });
    expect(list.body).toEqual({ current_page: 1, data: [], per_page: 50, total: 0 });
    expect(await stored(v.id)).toEqual(before);
  });
});
