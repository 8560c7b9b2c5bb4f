import { beforeAll, describe, expect, test } from "bun:test";
import { FIXTURE_PLAYER } from "../fixtures/player/sources.ts";
import { testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";

let t: TestApp;
let ws: TestWorkspace;

beforeAll(async () => {
  t = await testApp({ config: { limits: { readsPerMinute: 100_000, writesPerMinute: 100_000 }, playerSources: FIXTURE_PLAYER } });
  ws = await t.workspace();
}, 120_000);

async function video(token = ws.token, title = "Settings") {
  const res = await t.call("POST", "/api/v1/videos", { token, body: { title } });
  expect(res.status).toBe(201);
  return res.body.video as { id: number; code: string; script_url: string };
}

const settingsOf = async (id: number, token = ws.token) => (await t.call("GET", `/api/v1/videos/${id}/settings`, { token })).body.settings;
const outbox = (id: number) =>
  t.deps.sql`SELECT event, data FROM outbox WHERE event = 'video.settings.deployed' AND (data ->> 'video_id')::bigint = ${id} ORDER BY id`;

describe("draft", () => {
  test("merges recursively over the live settings, stores only, answers version null", async () => {
    const v = await video();
    const before = await settingsOf(v.id);
    const res = await t.call("POST", `/api/v1/videos/${v.id}/draft`, { token: ws.token, body: { style_options: { main_color: "#ff0000" } } });
    expect(res.status).toBe(200);
    expect(res.body.version).toBeNull();
    // Merged: the sent key changed, its siblings and other groups kept.
    expect(res.body.draft.style_options).toEqual({ ...before.style_options, main_color: "#ff0000" });
    expect(res.body.draft.playback_options).toEqual(before.playback_options);
    // Live settings untouched, nothing compiled, no event, no version.
    expect(await settingsOf(v.id)).toEqual(before);
    expect(await t.deps.blobs.cdnA.head(`p/${v.code}.js`)).toBeUndefined();
    expect(await outbox(v.id)).toHaveLength(0);
    const deploys = await t.call("GET", `/api/v1/videos/${v.id}/deploys`, { token: ws.token });
    expect(deploys.body.total).toBe(0);
    const [draft] = await t.deps.sql`SELECT settings FROM video_drafts WHERE video_id = ${v.id}`;
    expect(draft!.settings.style_options.main_color).toBe("#ff0000");
  });

  test("lists merge by index: three items over five leave indexes 3 and 4 in place", async () => {
    const v = await video();
    const five = [0, 1, 2, 3, 4].map((i) => ({ time_s: i * 10, title: `c${i}` }));
    expect(
      (await t.call("POST", `/api/v1/videos/${v.id}/deploy`, { token: ws.token, body: { chapters_options: { enabled: true, chapters: five } } })).status,
    ).toBe(200);
    const res = await t.call("POST", `/api/v1/videos/${v.id}/draft`, {
      token: ws.token,
      body: { chapters_options: { chapters: [{ title: "A" }, { title: "B" }, { title: "C" }] } },
    });
    expect(res.status).toBe(200);
    expect(res.body.draft.chapters_options.chapters).toEqual([
      { time_s: 0, title: "A" },
      { time_s: 10, title: "B" },
      { time_s: 20, title: "C" },
      { time_s: 30, title: "c3" },
      { time_s: 40, title: "c4" },
    ]);
  });

  test("unknown top-level keys and the five read-only groups are dropped with 200; nested keys are kept", async () => {
    const v = await video();
    const before = await settingsOf(v.id);
    const res = await t.call("POST", `/api/v1/videos/${v.id}/draft`, {
      token: ws.token,
      body: {
        not_a_group: { x: 1 },
        actions_options: { enabled: true },
        cloak_options: { enabled: true },
        headline_options: { enabled: true, text: "Hi" },
        pitch_time_options: { enabled: true },
        share_options: { enabled: true },
        style_options: { custom_nested_key: "kept" },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.draft.not_a_group).toBeUndefined();
    for (const name of ["actions_options", "cloak_options", "headline_options", "pitch_time_options", "share_options"]) {
      expect(res.body.draft[name]).toEqual(before[name]);
    }
    expect(res.body.draft.style_options.custom_nested_key).toBe("kept");
  });

  test("validation runs on the merged result: 422 with dotted field names, nothing stored", async () => {
    const v = await video();
    const bad = await t.call("POST", `/api/v1/videos/${v.id}/draft`, {
      token: ws.token,
      body: { style_options: { main_color: "not-a-colour", background_color: null }, progress_options: { bar_color: 12 } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBeString();
    expect(Object.keys(bad.body.errors).sort()).toEqual(["progress_options.bar_color", "style_options.background_color", "style_options.main_color"]);
    expect(bad.body.errors["style_options.main_color"][0]).toContain("CSS colour");
    expect(bad.body.errors["style_options.background_color"][0]).toContain("required");
    const [draft] = await t.deps.sql`SELECT 1 FROM video_drafts WHERE video_id = ${v.id}`;
    expect(draft).toBeUndefined();

    // A small, valid-looking payload fails because of what it merges into: a list entry's type.
    const nested = await t.call("POST", `/api/v1/videos/${v.id}/draft`, { token: ws.token, body: { chapters_options: { chapters: [{ time_s: -5 }] } } });
    expect(nested.status).toBe(422);
    expect(Object.keys(nested.body.errors)).toEqual(["chapters_options.chapters.0.time_s"]);

    const notObject = await t.call("POST", `/api/v1/videos/${v.id}/draft`, { token: ws.token, body: { style_options: "red" } });
    expect(notObject.status).toBe(422);
    expect(Object.keys(notObject.body.errors)).toEqual(["style_options"]);
  });

  test("a __proto__ key in the payload is ignored, not merged into the prototype", async () => {
    const v = await video();
    const res = await t.call("POST", `/api/v1/videos/${v.id}/draft`, {
      token: ws.token,
      body: '{"style_options":{"__proto__":{"main_color":"not-a-colour"},"border_radius":3}}',
    });
    expect(res.status).toBe(200);
    expect(res.body.draft.style_options.border_radius).toBe(3);
    expect(res.body.draft.style_options.main_color).toBe("#2563eb");
    expect(Object.hasOwn(res.body.draft.style_options, "__proto__")).toBe(false);
  });

  test("accepts every common CSS colour form", async () => {
    const v = await video();
    for (const colour of ["#abc", "#aabbcc80", "rebeccapurple", "rgb(10 20 30 / 50%)", "rgba(1, 2, 3, 0.4)", "hsl(210deg 80% 40%)", "transparent"]) {
      const res = await t.call("POST", `/api/v1/videos/${v.id}/draft`, { token: ws.token, body: { progress_options: { bar_color: colour } } });
      expect(res.status, colour).toBe(200);
    }
  });
});

describe("deploy", () => {
  test("merges over LIVE settings (not the draft), snapshots a version, deletes the draft, fires the event, answers embed_url", async () => {
    const v = await video();
    await t.call("POST", `/api/v1/videos/${v.id}/draft`, {
      token: ws.token,
      body: { style_options: { main_color: "#111111" }, autoplay_options: { enabled: true } },
    });
    const res = await t.call("POST", `/api/v1/videos/${v.id}/deploy`, {
      token: ws.token,
      body: { style_options: { background_color: "#222222" }, _version_label: "Launch" },
    });
    expect(res.status).toBe(200);
    expect(res.body.embed_url).toBe(v.script_url);
    expect(res.body.version_id).toBeNumber();
    expect(res.body.video.id).toBe(v.id);
    expect(res.body.video.style_options.background_color).toBe("#222222");
    // The draft's changes were not deployed...
    expect(res.body.video.style_options.main_color).not.toBe("#111111");
    expect(res.body.video.autoplay_options.enabled).toBe(false);
    // ...and the draft row is gone anyway (rule 6).
    expect(await t.deps.sql`SELECT 1 FROM video_drafts WHERE video_id = ${v.id}`).toHaveLength(0);

    const live = await settingsOf(v.id);
    expect(live.style_options.background_color).toBe("#222222");

    const [version] = await t.deps.sql`SELECT * FROM deploy_versions WHERE id = ${res.body.version_id}`;
    expect(version).toMatchObject({ workspace_video_id: v.id, label: "Launch", is_live: true, created_by: null });
    expect(version!.settings_snapshot).toEqual(live);
    expect(version!.version_hash).toMatch(/^[0-9a-f]{16}$/);

    expect((await outbox(v.id)).map((r) => r.data)).toEqual([{ video_id: v.id, version_id: res.body.version_id }]);

    // The bundle is on both targets at the stable script_url key.
    const a = await t.deps.blobs.cdnA.get(`p/${v.code}.js`);
    const b = await t.deps.blobs.cdnB.get(`p/${v.code}.js`);
    const [textA, textB] = [await new Response(a!.body).text(), await new Response(b!.body).text()];
    expect(textA).toBe(textB);
    expect(textA).toContain("#222222");
  });

  test("a second deploy moves is_live; the list is newest first, 20 per page, in the paginated envelope", async () => {
    const v = await video();
    const ids: number[] = [];
    for (let i = 0; i < 22; i++) {
      const res = await t.call("POST", `/api/v1/videos/${v.id}/deploy`, {
        token: ws.token,
        body: { style_options: { border_radius: i }, _version_label: `v${i}` },
      });
      expect(res.status).toBe(200);
      ids.push(res.body.version_id);
    }
    const page1 = await t.call("GET", `/api/v1/videos/${v.id}/deploys`, { token: ws.token });
    expect(page1.status).toBe(200);
    expect(page1.body).toMatchObject({ current_page: 1, per_page: 20, total: 22, last_page: 2, from: 1, to: 20 });
    expect(page1.body.next_page_url).toContain("page=2");
    for (const key of ["first_page_url", "last_page_url", "links", "path", "prev_page_url"]) expect(page1.body).toHaveProperty(key);
    expect(page1.body.data.map((d: { id: number }) => d.id)).toEqual(ids.slice().reverse().slice(0, 20));
    expect(page1.body.data[0]).toMatchObject({ label: "v21", is_live: true, workspace_video_id: v.id, created_by: null });
    expect(page1.body.data[0].settings_snapshot.style_options.border_radius).toBe(21);
    expect(page1.body.data.slice(1).every((d: { is_live: boolean }) => !d.is_live)).toBe(true);
    for (const key of ["id", "workspace_video_id", "created_by", "label", "version_hash", "settings_snapshot", "is_live", "created_at", "updated_at"])
      expect(page1.body.data[0]).toHaveProperty(key);
    const page2 = await t.call("GET", `/api/v1/videos/${v.id}/deploys?page=2`, { token: ws.token });
    expect(page2.body.data.map((d: { id: number }) => d.id)).toEqual([ids[1], ids[0]]);
  }, 60_000);

  test("an invalid merged result is 422 and nothing is compiled or versioned", async () => {
    const v = await video();
    const res = await t.call("POST", `/api/v1/videos/${v.id}/deploy`, { token: ws.token, body: { progress_options: { background_color: "blurple" } } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(["progress_options.background_color"]);
    expect(await t.deps.sql`SELECT 1 FROM deploy_versions WHERE workspace_video_id = ${v.id}`).toHaveLength(0);
    expect(await t.deps.blobs.cdnA.head(`p/${v.code}.js`)).toBeUndefined();
    const label = await t.call("POST", `/api/v1/videos/${v.id}/deploy`, { token: ws.token, body: { _version_label: 42 } });
    expect(label.status).toBe(422);
    expect(Object.keys(label.body.errors)).toEqual(["_version_label"]);
  });

  test("read-only groups sent to deploy change nothing and still answer 200", async () => {
    const v = await video();
    const before = await settingsOf(v.id);
    const res = await t.call("POST", `/api/v1/videos/${v.id}/deploy`, {
      token: ws.token,
      body: { share_options: { enabled: true }, cloak_options: { enabled: true } },
    });
    expect(res.status).toBe(200);
    expect(await settingsOf(v.id)).toEqual(before);
  });
});

describe("restore", () => {
  test("writes the snapshot back wholesale as a new version labelled 'Restored from version <id>', with no event", async () => {
    const v = await video();
    const first = await t.call("POST", `/api/v1/videos/${v.id}/deploy`, {
      token: ws.token,
      body: {
        style_options: { main_color: "#010101" },
        chapters_options: {
          enabled: true,
          chapters: [
            { time_s: 1, title: "a" },
            { time_s: 2, title: "b" },
          ],
        },
      },
    });
    const snapshot = await settingsOf(v.id);
    await t.call("POST", `/api/v1/videos/${v.id}/deploy`, {
      token: ws.token,
      body: { style_options: { main_color: "#020202", extra: 1 }, chapters_options: { chapters: [{ title: "x" }, { title: "y" }, { time_s: 3, title: "c" }] } },
    });
    const eventsBefore = (await outbox(v.id)).length;
    await t.call("POST", `/api/v1/videos/${v.id}/draft`, { token: ws.token, body: { style_options: { main_color: "#0a0a0a" } } });

    const res = await t.call("POST", `/api/v1/videos/${v.id}/deploys/${first.body.version_id}/restore`, { token: ws.token });
    expect(res.status).toBe(200);
    expect(res.body.video.style_options.main_color).toBe("#010101");
    expect(res.body.restored_version_id).toBeNumber();
    expect(res.body.restored_version_id).not.toBe(first.body.version_id);
    // Wholesale: keys added later are gone and the three-item list is back to two.
    const live = await settingsOf(v.id);
    expect(live).toEqual(snapshot);
    expect(live.style_options.extra).toBeUndefined();
    expect(live.chapters_options.chapters).toHaveLength(2);

    const list = await t.call("GET", `/api/v1/videos/${v.id}/deploys`, { token: ws.token });
    expect(list.body.data[0]).toMatchObject({ id: res.body.restored_version_id, label: `Restored from version ${first.body.version_id}`, is_live: true });
    expect(list.body.data.filter((d: { is_live: boolean }) => d.is_live)).toHaveLength(1);
    expect((await outbox(v.id)).length).toBe(eventsBefore);
    // Only deploy deletes the pending draft (rule 6); a restore leaves it.
    expect(await t.deps.sql`SELECT 1 FROM video_drafts WHERE video_id = ${v.id}`).toHaveLength(1);
    const bundle = await t.deps.blobs.cdnB.get(`p/${v.code}.js`);
    expect(await new Response(bundle!.body).text()).toContain("#010101");
  });

  test("unknown or foreign version ids are 404 with the model shape", async () => {
    const v = await video();
    const other = await video();
    const otherDeploy = await t.call("POST", `/api/v1/videos/${other.id}/deploy`, { token: ws.token, body: {} });
    const unknown = await t.call("POST", `/api/v1/videos/${v.id}/deploys/999999999/restore`, { token: ws.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: "No query results for model [DeployVersion] 999999999" });
    // A version of another video of the same workspace is not this video's.
    const foreign = await t.call("POST", `/api/v1/videos/${v.id}/deploys/${otherDeploy.body.version_id}/restore`, { token: ws.token });
    expect(foreign.status).toBe(404);
    const notNumeric = await t.call("POST", `/api/v1/videos/${v.id}/deploys/abc/restore`, { token: ws.token });
    expect(notNumeric.status).toBe(404);
    const unknownVideo = await t.call("POST", `/api/v1/videos/999999999/deploys/${otherDeploy.body.version_id}/restore`, { token: ws.token });
    expect(unknownVideo.body).toEqual({ message: "No query results for model [Video] 999999999" });
  });
});

describe("errors, scopes and workspaces", () => {
  test("unknown video is 404 {message: No query results for model [Video] <id>} on every settings call", async () => {
    for (const [method, path] of [
      ["POST", "/api/v1/videos/999999999/draft"],
      ["POST", "/api/v1/videos/999999999/deploy"],
      ["GET", "/api/v1/videos/999999999/deploys"],
    ] as const) {
      const res = await t.call(method, path, { token: ws.token, body: method === "POST" ? {} : undefined });
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ message: "No query results for model [Video] 999999999" });
    }
    const res = await t.call("POST", "/api/v1/videos/abc/draft", { token: ws.token, body: {} });
    expect(res.status).toBe(404);
    expect(res.body.message).toContain("[Video]");
  });

  test("every settings call needs videos:write", async () => {
    const v = await video();
    const reader = await ws.mint(["videos:read"]);
    for (const [method, path] of [
      ["POST", `/api/v1/videos/${v.id}/draft`],
      ["POST", `/api/v1/videos/${v.id}/deploy`],
      ["GET", `/api/v1/videos/${v.id}/deploys`],
      ["POST", `/api/v1/videos/${v.id}/deploys/1/restore`],
    ] as const) {
      const res = await t.call(method, path, { token: reader.secret, body: method === "POST" ? {} : undefined });
      expect(res.status, path).toBe(403);
      expect(res.body.error).toMatchObject({ code: "INSUFFICIENT_SCOPE", required: "videos:write" });
    }
  });

  test("another workspace gets 404 on every route and changes nothing", async () => {
    const v = await video();
    const deployed = await t.call("POST", `/api/v1/videos/${v.id}/deploy`, { token: ws.token, body: { style_options: { main_color: "#123456" } } });
    const before = await settingsOf(v.id);
    const other = await t.workspace();
    const mine = await video(other.token, "B's video");
    for (const [method, path] of [
      ["POST", `/api/v1/videos/${v.id}/draft`],
      ["POST", `/api/v1/videos/${v.id}/deploy`],
      ["GET", `/api/v1/videos/${v.id}/deploys`],
      ["POST", `/api/v1/videos/${v.id}/deploys/${deployed.body.version_id}/restore`],
    ] as const) {
      const res = await t.call(method, path, { token: other.token, body: method === "POST" ? { style_options: { main_color: "#654321" } } : undefined });
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ message: `No query results for model [Video] ${v.id}` });
    }
    // A's version id on B's own video resolves to nothing either.
    const cross = await t.call("POST", `/api/v1/videos/${mine.id}/deploys/${deployed.body.version_id}/restore`, { token: other.token });
    expect(cross.status).toBe(404);
    expect(cross.body).toEqual({ message: `No query results for model [DeployVersion] ${deployed.body.version_id}` });
    expect(await settingsOf(v.id)).toEqual(before);
    expect(await t.deps.sql`SELECT 1 FROM video_drafts WHERE video_id = ${v.id}`).toHaveLength(0);
    const list = await t.call("GET", `/api/v1/videos/${mine.id}/deploys`, { token: other.token });
    expect(list.body.total).toBe(0);
  });
});
