import { describe, expect, test, beforeAll } from "bun:test";
import { GROUP_NAMES } from "../../contract/settings.ts";
import { BASE, appAndWorkspace, type TestApp, type TestWorkspace, UNLIMITED } from "../helpers/app.ts";

let t: TestApp;
let ws: TestWorkspace;
beforeAll(async () => ({ t, ws } = await appAndWorkspace({ config: UNLIMITED })), 60_000);

/** docs/api.md "Settings option groups": the 18 groups copy_from copies, in snake_case. */
const COPIED = [
  "style_options",
  "playback_options",
  "autoplay_options",
  "progress_options",
  "actions_options",
  "pixels_options",
  "continue_watching_options",
  "turbo_options",
  "timed_events_options",
  "user_events_options",
  "chapters_options",
  "playlist_options",
  "engagement_options",
  "lead_form_options",
  "notes_options",
  "quiz_options",
  "watch_gate_options",
  "cross_device_resume_options",
];
const SLIM_KEYS = ["code", "created_at", "id", "title", "updated_at", "workspace_id"];
const MEDIA_FIELDS = ["landscape_hls", "portrait_hls", "landscape_thumb", "portrait_thumb"];

async function create(body: Record<string, unknown>, token = ws.token) {
  const res = await t.call("POST", "/api/v1/videos", { token, body });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body.video as Record<string, any>;
}
const outboxCount = async (workspaceId = ws.id) =>
  (await t.deps.sql`SELECT count(*)::int AS n FROM outbox WHERE workspace_id = ${workspaceId}`)[0]!.n as number;
const videoCount = async (workspaceId = ws.id) => (await t.deps.sql`SELECT count(*)::int AS n FROM videos WHERE workspace_id = ${workspaceId}`)[0]!.n as number;
/** Marks every option group of a stored video with a value no default has. */
async function markSettings(id: number, marker: string) {
  const [row] = await t.deps.sql`SELECT settings FROM videos WHERE id = ${id}`;
  const settings = { ...(row!.settings as Record<string, Record<string, unknown>>) };
  for (const name of GROUP_NAMES) settings[name] = { ...settings[name], marker: `${marker}:${name}` };
  await t.deps.sql`UPDATE videos SET settings = ${t.deps.sql.json(settings as never)} WHERE id = ${id}`;
}
const relative = (url: string) => {
  expect(url.startsWith(BASE)).toBe(true);
  return url.slice(BASE.length);
};

describe("videos", () => {
  test("create returns the full video and its status, and writes video.created to the outbox", async () => {
    const res = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "Launch", tags: ["a", "b"] } });
    expect(res.status).toBe(201);
    expect(res.body.video).toMatchObject({
      title: "Launch",
      tags: ["a", "b"],
      player_version: "v2",
      workspace_id: ws.id,
      folder_id: null,
      landscape_hls: null,
    });
    expect(res.body.video.style_options.main_color).toBeString();
    expect(res.body.status).toMatchObject({
      id: res.body.video.id,
      status: "waiting_for_upload",
      orientations: { landscape: null, portrait: null },
      embed: null,
    });
    const rows = await t.deps.sql`SELECT event, data FROM outbox WHERE workspace_id = ${ws.id} AND event = 'video.created'`;
    expect(rows.map((r) => r.data)).toContainEqual({ video: { id: res.body.video.id, code: res.body.video.code, title: "Launch" } });
  });

  test("create takes plain_mode and each player_version; default is v2 and plain_mode false", async () => {
    for (const version of ["v1", "v2", "1", "2"]) expect((await create({ title: `pv ${version}`, player_version: version })).player_version).toBe(version);
    const plain = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "plain", plain_mode: true } });
    expect(plain.body.video.plain_mode).toBe(true);
    expect(plain.body.status.plain_mode).toBe(true);
    const plainDefault = await create({ title: "not plain" });
    expect(plainDefault.plain_mode).toBe(false);
    expect(plainDefault.player_version).toBe("v2");
  });
});

describe("create validation", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["title missing", {}, "title"],
    ["title empty", { title: "" }, "title"],
    ["title too long", { title: "x".repeat(256) }, "title"],
    ["title not a string", { title: 5 }, "title"],
    ["tag over 64", { title: "ok", tags: ["x".repeat(65)] }, "tags"],
    ["tags not a list", { title: "ok", tags: "a" }, "tags"],
    ["bad player_version", { title: "ok", player_version: "v3" }, "player_version"],
    ["bad folder_id", { title: "ok", folder_id: "abc" }, "folder_id"],
    ["bad copy_from", { title: "ok", copy_from: "abc" }, "copy_from"],
  ];
  for (const [name, body, field] of cases) {
    test(`${name} → 422 {message, errors: {${field}: [...]}} and nothing created`, async () => {
      const before = await videoCount();
      const res = await t.call("POST", "/api/v1/videos", { token: ws.token, body });
      expect(res.status).toBe(422);
      expect(res.body.message).toBeString();
      const keys = Object.keys(res.body.errors);
      expect(keys.some((k) => k === field || k.startsWith(`${field}.`))).toBe(true);
      for (const messages of Object.values(res.body.errors)) {
        expect(messages).toBeArray();
        for (const m of messages as unknown[]) expect(m).toBeString();
      }
      expect(await videoCount()).toBe(before);
    });
  }

  test("a title of exactly 255 and a tag of exactly 64 characters are fine", async () => {
    const video = await create({ title: "t".repeat(255), tags: ["g".repeat(64)] });
    expect(video.title).toHaveLength(255);
    expect(video.tags).toEqual(["g".repeat(64)]);
  });

  test("a body that is not JSON is a clear error and creates nothing", async () => {
    const before = await videoCount();
    const res = await t.call("POST", "/api/v1/videos", { token: ws.token, body: "{not json" });
    expect([400, 422]).toContain(res.status);
    expect(res.body).toBeObject();
    expect(await videoCount()).toBe(before);
  });
});

describe("list", () => {
  let lw: TestWorkspace;
  let made: Record<string, any>[];
  beforeAll(async () => {
    lw = await t.workspace();
    made = [];
    for (const title of ["banana", "apple", "cherry"]) made.push(await create({ title }, lw.token));
    // Touch the oldest last, so updated_at orders differently from id.
    await t.call("PATCH", `/api/v1/videos/${made[0]!.id}`, { token: lw.token, body: { tags: ["touched"] } });
  });

  test("the paginated envelope has every field and working page links", async () => {
    const res = await t.call("GET", "/api/v1/videos?per_page=2&sort=title&order=asc", { token: lw.token });
    expect(res.status).toBe(200);
    const page = res.body;
    expect(Object.keys(page).sort()).toEqual(
      [
        "current_page",
        "data",
        "first_page_url",
        "from",
        "last_page",
        "last_page_url",
        "links",
        "next_page_url",
        "path",
        "per_page",
        "prev_page_url",
        "to",
        "total",
      ].sort(),
    );
    expect(page).toMatchObject({ current_page: 1, from: 1, to: 2, last_page: 2, per_page: 2, total: 3, prev_page_url: null, path: `${BASE}/api/v1/videos` });
    expect(page.data.map((v: any) => v.title)).toEqual(["apple", "banana"]);
    expect(page.links).toEqual([
      { url: null, label: expect.stringContaining("Previous"), active: false },
      { url: expect.stringContaining("page=1"), label: "1", active: true },
      { url: expect.stringContaining("page=2"), label: "2", active: false },
      { url: page.next_page_url, label: expect.stringContaining("Next"), active: false },
    ]);
    // Following next_page_url keeps sort, order and per_page.
    const next = await t.call("GET", relative(page.next_page_url), { token: lw.token });
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ current_page: 2, from: 3, to: 3, last_page: 2, per_page: 2, total: 3, next_page_url: null });
    expect(next.body.data.map((v: any) => v.title)).toEqual(["cherry"]);
    expect(next.body.links.at(-1).url).toBeNull();
    const prev = await t.call("GET", relative(next.body.prev_page_url), { token: lw.token });
    expect(prev.body.data).toEqual(page.data);
    const last = await t.call("GET", relative(page.last_page_url), { token: lw.token });
    expect(last.body.current_page).toBe(2);
    const first = await t.call("GET", relative(next.body.first_page_url), { token: lw.token });
    expect(first.body.data).toEqual(page.data);
  });

  test("a page past the end is empty with from/to null", async () => {
    const res = await t.call("GET", "/api/v1/videos?per_page=2&page=5", { token: lw.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ current_page: 5, data: [], from: null, to: null, total: 3, last_page: 2 });
  });

  test("per_page defaults to 50", async () => {
    const res = await t.call("GET", "/api/v1/videos", { token: lw.token });
    expect(res.body.per_page).toBe(50);
    expect(res.body.data).toHaveLength(3);
  });

  test("per_page that is not an integer from 1 to 100, or a page below 1, is 422 naming the field", async () => {
    const page = await t.call("GET", "/api/v1/videos?page=0&per_page=10", { token: lw.token });
    expect(page.status).toBe(422);
    expect(Object.keys(page.body.errors)).toEqual(["page"]);
    for (const bad of ["0", "-1", "abc", "101"]) {
      const res = await t.call("GET", `/api/v1/videos?sort=title&per_page=${bad}`, { token: lw.token });
      expect(res.status).toBe(422);
      expect(res.body.errors.per_page).toBeArray();
    }
  });

  test("slim items have exactly id, title, code, workspace_id, created_at, updated_at", async () => {
    const res = await t.call("GET", "/api/v1/videos", { token: lw.token });
    for (const item of res.body.data) {
      expect(Object.keys(item).sort()).toEqual(SLIM_KEYS);
      expect(item.workspace_id).toBe(lw.id);
      expect(new Date(item.created_at).toISOString()).toBe(item.created_at);
    }
  });

  test("sort by each column, asc and desc; default order desc; unknown sort falls back to id", async () => {
    const ids = (res: { body: any }) => res.body.data.map((v: any) => v.id);
    const get = (q: string) => t.call("GET", `/api/v1/videos?${q}`, { token: lw.token });
    const [banana, apple, cherry] = made.map((v) => v.id);
    const byId = [banana, apple, cherry];
    expect(ids(await get("sort=id&order=asc"))).toEqual(byId);
    expect(ids(await get("sort=id&order=desc"))).toEqual([...byId].reverse());
    expect(ids(await get(""))).toEqual([...byId].reverse());
    expect(ids(await get("sort=title&order=asc"))).toEqual([apple, banana, cherry]);
    expect(ids(await get("sort=title&order=desc"))).toEqual([cherry, banana, apple]);
    expect(ids(await get("sort=title"))).toEqual([cherry, banana, apple]);
    const byCode = [...made].sort((a, b) => (a.code < b.code ? -1 : 1)).map((v) => v.id);
    expect(ids(await get("sort=code&order=asc"))).toEqual(byCode);
    expect(ids(await get("sort=code&order=desc"))).toEqual([...byCode].reverse());
    expect(ids(await get("sort=created_at&order=asc"))).toEqual(byId);
    expect(ids(await get("sort=created_at&order=desc"))).toEqual([...byId].reverse());
    expect(ids(await get("sort=updated_at&order=desc"))[0]).toBe(banana);
    expect(ids(await get("sort=updated_at&order=asc")).at(-1)).toBe(banana);
    for (const unknown of ["nope", "workspace_id", "title;drop table videos", "settings"]) {
      expect(ids(await get(`sort=${encodeURIComponent(unknown)}&order=asc`))).toEqual(byId);
    }
    expect(ids(await get("sort=title&order=sideways"))).toEqual([cherry, banana, apple]);
  });
});

describe("read", () => {
  test("GET /videos/{id} returns the full video with every option group", async () => {
    const created = await create({ title: "full", tags: ["t"] });
    const res = await t.call("GET", `/api/v1/videos/${created.id}`, { token: ws.token });
    expect(res.status).toBe(200);
    const video = res.body.video;
    expect(video).toMatchObject({
      id: created.id,
      code: created.code,
      workspace_id: ws.id,
      title: "full",
      folder_id: null,
      tags: ["t"],
      player_version: "v2",
      plain_mode: false,
      landscape_hls: null,
      portrait_hls: null,
      landscape_thumb: null,
      portrait_thumb: null,
      default_orientation: "landscape",
    });
    expect(video.code).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(video.script_url).toStartWith("http");
    expect(new Date(video.created_at).toISOString()).toBe(video.created_at);
    expect(new Date(video.updated_at).toISOString()).toBe(video.updated_at);
    for (const group of GROUP_NAMES) expect(video[group]).toBeObject();
    for (const group of [
      "style_options",
      "playback_options",
      "autoplay_options",
      "captions_options",
      "chapters_options",
      "quiz_options",
      "progress_options",
      "cta_cards_options",
      "playlist_options",
      "actions_options",
      "cloak_options",
      "headline_options",
      "pitch_time_options",
      "share_options",
    ]) {
      expect(video[group]).toBeObject();
    }
    for (const required of [
      video.style_options.main_color,
      video.style_options.background_color,
      video.progress_options.background_color,
      video.progress_options.bar_color,
    ]) {
      expect(required).toBeString();
    }
    expect(video.chapters_options.chapters).toBeArray();
    expect(video.cta_cards_options.cards).toBeArray();
    expect(res.body).toEqual({ video: created as any });
  });

  test("GET /videos/{id}/settings returns {settings} with every option group and nothing else", async () => {
    const created = await create({ title: "settings" });
    const res = await t.call("GET", `/api/v1/videos/${created.id}/settings`, { token: ws.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["settings"]);
    expect(Object.keys(res.body.settings).sort()).toEqual([...GROUP_NAMES].sort());
    for (const group of GROUP_NAMES) expect(res.body.settings[group]).toEqual(created[group]);
  });

  test("GET /videos/{id}/status returns the full status object", async () => {
    const created = await create({ title: "status" });
    const res = await t.call("GET", `/api/v1/videos/${created.id}/status`, { token: ws.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: created.id,
      code: created.code,
      title: "status",
      folder_id: null,
      status: "waiting_for_upload",
      orientations: { landscape: null, portrait: null },
      plain_mode: false,
      status_url: `${BASE}/api/v1/videos/${created.id}/status`,
      embed: null,
    });
    const self = await t.call("GET", relative(res.body.status_url), { token: ws.token });
    expect(self.body).toEqual(res.body);
  });
});

describe("404", () => {
  const READ_404 = { error: { code: "NOT_FOUND", message: "Video not found" } };

  test("GET /videos/{id} and /settings: {error: {code: NOT_FOUND, message: Video not found}}", async () => {
    for (const path of ["/api/v1/videos/99999999", "/api/v1/videos/99999999/settings"]) {
      const res = await t.call("GET", path, { token: ws.token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(READ_404);
    }
  });

  test("PATCH, DELETE, duplicate: {message: No query results for model [Video] <id>}", async () => {
    for (const [method, path, body] of [
      ["PATCH", "/api/v1/videos/99999999", { title: "x" }],
      ["DELETE", "/api/v1/videos/99999999", undefined],
      ["POST", "/api/v1/videos/99999999/duplicate", undefined],
    ] as const) {
      const res = await t.call(method, path, { token: ws.token, body });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: "No query results for model [Video] 99999999" });
    }
  });

  test("status: VIDEO_NOT_FOUND", async () => {
    const res = await t.call("GET", "/api/v1/videos/99999999/status", { token: ws.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: "VIDEO_NOT_FOUND", message: expect.any(String) } });
  });

  test("non-numeric, zero, negative and fractional ids are 404 on every route", async () => {
    for (const id of ["abc", "0", "-1", "1.5", "1e3", "99999999999999999999"]) {
      for (const [method, suffix, body] of [
        ["GET", "", undefined],
        ["GET", "/settings", undefined],
        ["GET", "/status", undefined],
        ["PATCH", "", { title: "x" }],
        ["DELETE", "", undefined],
        ["POST", "/duplicate", undefined],
      ] as const) {
        const res = await t.call(method, `/api/v1/videos/${id}${suffix}`, { token: ws.token, body });
        expect(res.status).toBe(404);
      }
    }
  });
});

describe("copy_from", () => {
  test("copies the player version and exactly the 18 copy_from groups", async () => {
    const source = await create({ title: "source", player_version: "1" });
    await markSettings(source.id, "src");
    const res = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "copy target", copy_from: source.id } });
    expect(res.status).toBe(201);
    const video = res.body.video;
    expect(video.player_version).toBe("1");
    expect(video.title).toBe("copy target");
    for (const group of COPIED) expect(video[group].marker).toBe(`src:${group}`);
    const fresh = await create({ title: "fresh" });
    for (const group of GROUP_NAMES.filter((g) => !COPIED.includes(g))) {
      expect(video[group].marker).toBeUndefined();
      expect(video[group]).toEqual(fresh[group]);
    }
    expect(video.cta_cards_options.marker).toBeUndefined();
    // The copy is stored, not just echoed.
    const stored = await t.call("GET", `/api/v1/videos/${video.id}/settings`, { token: ws.token });
    expect(stored.body.settings.quiz_options.marker).toBe("src:quiz_options");
    expect(stored.body.settings.cta_cards_options.marker).toBeUndefined();
    // Media is never copied.
    for (const field of MEDIA_FIELDS) expect(video[field]).toBeNull();
  });

  test("an unknown id is not an error and copies nothing", async () => {
    const fresh = await create({ title: "baseline" });
    const res = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "from nowhere", copy_from: 987654321 } });
    expect(res.status).toBe(201);
    expect(res.body.video.player_version).toBe("v2");
    for (const group of GROUP_NAMES) expect(res.body.video[group]).toEqual(fresh[group]);
  });

  test("another workspace's id is not an error and copies nothing", async () => {
    const other = await t.workspace();
    const foreign = await create({ title: "foreign source", player_version: "v1" }, other.token);
    await markSettings(foreign.id, "foreign");
    const res = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "from foreign", copy_from: foreign.id } });
    expect(res.status).toBe(201);
    expect(res.body.video.player_version).toBe("v2");
    expect(res.body.video.workspace_id).toBe(ws.id);
    for (const group of GROUP_NAMES) expect(res.body.video[group].marker).toBeUndefined();
  });
});

describe("folders on videos", () => {
  test("create with a folder of this workspace; unknown or foreign folder_id → 422 FOLDER_NOT_FOUND and nothing created", async () => {
    const folder = await t.call("POST", "/api/v1/folders", { token: ws.token, body: { name: "mine" } });
    const ok = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "in folder", folder_id: folder.body.folder.id } });
    expect(ok.status).toBe(201);
    expect(ok.body.video.folder_id).toBe(folder.body.folder.id);

    const other = await t.workspace();
    const foreign = await t.call("POST", "/api/v1/folders", { token: other.token, body: { name: "theirs" } });
    for (const folderId of [foreign.body.folder.id, 987654321]) {
      const before = await videoCount();
      const events = await outboxCount();
      const res = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "bad folder", folder_id: folderId } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: { code: "FOLDER_NOT_FOUND", message: expect.any(String) } });
      expect(await videoCount()).toBe(before);
      expect(await outboxCount()).toBe(events);
    }
  });

  test("PATCH with an unknown or foreign folder_id → 422 FOLDER_NOT_FOUND and the video is unchanged", async () => {
    const other = await t.workspace();
    const foreign = await t.call("POST", "/api/v1/folders", { token: other.token, body: { name: "theirs" } });
    const video = await create({ title: "stays", tags: ["keep"] });
    for (const folderId of [foreign.body.folder.id, 987654321]) {
      const res = await t.call("PATCH", `/api/v1/videos/${video.id}`, { token: ws.token, body: { title: "changed", folder_id: folderId, tags: [] } });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe("FOLDER_NOT_FOUND");
    }
    const [row] = await t.deps.sql`SELECT title, folder_id, tags FROM videos WHERE id = ${video.id}`;
    expect(row).toEqual({ title: "stays", folder_id: null, tags: ["keep"] });
  });
});

describe("update", () => {
  test("touches only title, folder and tags, and fires nothing", async () => {
    const folder = (await t.call("POST", "/api/v1/folders", { token: ws.token, body: { name: "patch folder" } })).body.folder;
    const video = await create({ title: "before", tags: ["a", "b"], player_version: "v1", plain_mode: true });
    await markSettings(video.id, "keep");
    await t.deps.sql`UPDATE videos SET landscape_hls = 'https://media.example/x.m3u8', landscape_thumb = 'https://media.example/x.jpg' WHERE id = ${video.id}`;
    const [before] = await t.deps.sql`SELECT * FROM videos WHERE id = ${video.id}`;
    const events = await outboxCount();

    const res = await t.call("PATCH", `/api/v1/videos/${video.id}`, { token: ws.token, body: { title: "after", folder_id: folder.id, tags: ["c"] } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["video"]);
    expect(res.body.video).toMatchObject({
      id: video.id,
      title: "after",
      folder_id: folder.id,
      tags: ["c"],
      player_version: "v1",
      plain_mode: true,
      landscape_hls: "https://media.example/x.m3u8",
    });
    expect(res.body.video.quiz_options.marker).toBe("keep:quiz_options");

    const [after] = await t.deps.sql`SELECT * FROM videos WHERE id = ${video.id}`;
    for (const column of Object.keys(before!)) {
      if (["title", "folder_id", "tags", "updated_at"].includes(column)) continue;
      expect(after![column]).toEqual(before![column]);
    }
    expect(await outboxCount()).toBe(events);
  });

  test("an absent field is left alone; folder_id null takes the video out of its folder; tags replace the whole list", async () => {
    const folder = (await t.call("POST", "/api/v1/folders", { token: ws.token, body: { name: "leave me" } })).body.folder;
    const video = await create({ title: "partial", tags: ["x", "y"], folder_id: folder.id });
    const titleOnly = await t.call("PATCH", `/api/v1/videos/${video.id}`, { token: ws.token, body: { title: "renamed" } });
    expect(titleOnly.body.video).toMatchObject({ title: "renamed", folder_id: folder.id, tags: ["x", "y"] });
    const tags = await t.call("PATCH", `/api/v1/videos/${video.id}`, { token: ws.token, body: { tags: ["z"] } });
    expect(tags.body.video).toMatchObject({ title: "renamed", folder_id: folder.id, tags: ["z"] });
    const empty = await t.call("PATCH", `/api/v1/videos/${video.id}`, { token: ws.token, body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body.video).toMatchObject({ title: "renamed", folder_id: folder.id, tags: ["z"] });
    const out = await t.call("PATCH", `/api/v1/videos/${video.id}`, { token: ws.token, body: { folder_id: null } });
    expect(out.status).toBe(200);
    expect(out.body.video).toMatchObject({ title: "renamed", folder_id: null, tags: ["z"] });
    const cleared = await t.call("PATCH", `/api/v1/videos/${video.id}`, { token: ws.token, body: { tags: [] } });
    expect(cleared.body.video.tags).toEqual([]);
    const read = await t.call("GET", `/api/v1/videos/${video.id}`, { token: ws.token });
    expect(read.body.video).toMatchObject({ title: "renamed", folder_id: null, tags: [] });
  });

  test("invalid fields → 422 and nothing changes", async () => {
    const video = await create({ title: "valid" });
    for (const body of [{ title: "" }, { title: "x".repeat(256) }, { tags: ["x".repeat(65)] }, { folder_id: "abc" }]) {
      const res = await t.call("PATCH", `/api/v1/videos/${video.id}`, { token: ws.token, body });
      expect(res.status).toBe(422);
      expect(res.body.errors).toBeObject();
    }
    const [row] = await t.deps.sql`SELECT title, tags FROM videos WHERE id = ${video.id}`;
    expect(row).toEqual({ title: "valid", tags: [] });
  });
});

describe("duplicate", () => {
  test("'<title> (copy)', same settings and player version, no media, new id and code, fires nothing", async () => {
    const source = await create({ title: "Original", player_version: "v1", tags: ["t"] });
    await markSettings(source.id, "dup");
    await t.deps.sql`
      UPDATE videos SET landscape_hls = 'https://m.example/l.m3u8', portrait_hls = 'https://m.example/p.m3u8',
        landscape_thumb = 'https://m.example/l.jpg', portrait_thumb = 'https://m.example/p.jpg',
        landscape_media = ${t.deps.sql.json({ status: "ready", progress: 100, error: null } as never)}
      WHERE id = ${source.id}`;
    const events = await outboxCount();
    const res = await t.call("POST", `/api/v1/videos/${source.id}/duplicate`, { token: ws.token });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(["video"]);
    const copy = res.body.video;
    expect(copy.title).toBe("Original (copy)");
    expect(copy.player_version).toBe("v1");
    expect(copy.workspace_id).toBe(ws.id);
    expect(copy.id).not.toBe(source.id);
    expect(copy.code).not.toBe(source.code);
    for (const field of MEDIA_FIELDS) expect(copy[field]).toBeNull();
    for (const group of GROUP_NAMES) expect(copy[group].marker).toBe(`dup:${group}`);
    const status = await t.call("GET", `/api/v1/videos/${copy.id}/status`, { token: ws.token });
    expect(status.body).toMatchObject({ status: "waiting_for_upload", orientations: { landscape: null, portrait: null }, embed: null });
    expect(await outboxCount()).toBe(events);
    // The source is untouched.
    const [row] = await t.deps.sql`SELECT title, landscape_hls FROM videos WHERE id = ${source.id}`;
    expect(row).toEqual({ title: "Original", landscape_hls: "https://m.example/l.m3u8" });
  });
});

describe("delete", () => {
  test("returns {deleted: true}, deletes the pending draft, and writes video.deleted {video_id} to the outbox", async () => {
    const video = await create({ title: "to delete" });
    await t.deps
      .sql`INSERT INTO video_drafts (video_id, settings) VALUES (${video.id}, ${t.deps.sql.json({ style_options: { main_color: "#ff0000" } } as never)})`;
    const res = await t.call("DELETE", `/api/v1/videos/${video.id}`, { token: ws.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true });
    expect(await t.deps.sql`SELECT 1 FROM video_drafts WHERE video_id = ${video.id}`).toHaveLength(0);
    expect(await t.deps.sql`SELECT 1 FROM videos WHERE id = ${video.id}`).toHaveLength(0);
    const rows = await t.deps.sql`SELECT data FROM outbox WHERE workspace_id = ${ws.id} AND event = 'video.deleted'`;
    expect(rows.map((r) => r.data)).toContainEqual({ video_id: video.id });
    expect((await t.call("GET", `/api/v1/videos/${video.id}`, { token: ws.token })).status).toBe(404);
    const again = await t.call("DELETE", `/api/v1/videos/${video.id}`, { token: ws.token });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: `No query results for model [Video] ${video.id}` });
  });

  test("a deleted video leaves the list", async () => {
    const lw = await t.workspace();
    const keep = await create({ title: "keep" }, lw.token);
    const gone = await create({ title: "gone" }, lw.token);
    await t.call("DELETE", `/api/v1/videos/${gone.id}`, { token: lw.token });
    const list = await t.call("GET", "/api/v1/videos", { token: lw.token });
    expect(list.body.data.map((v: any) => v.id)).toEqual([keep.id]);
    expect(list.body.total).toBe(1);
  });
});
