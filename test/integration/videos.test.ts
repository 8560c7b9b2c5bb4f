import { describe, expect, test, beforeAll } from "bun:test";
import { testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";

let t: TestApp;
let ws: TestWorkspace;

beforeAll(async () => {
  t = await testApp();
  ws = await t.workspace();
});

describe("videos", () => {
  test("create returns the full video and its status, and writes video.created to the outbox", async () => {
    const res = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "Launch", tags: ["a", "b"] } });
    expect(res.status).toBe(201);
    expect(res.body.video).toMatchObject({ title: "Launch", tags: ["a", "b"], player_version: "v2", workspace_id: ws.id, folder_id: null, landscape_hls: null });
    expect(res.body.video.style_options.main_color).toBeString();
    expect(res.body.status).toMatchObject({ id: res.body.video.id, status: "waiting_for_upload", orientations: { landscape: null, portrait: null }, embed: null });
    const rows = await t.deps.sql`SELECT event, data FROM outbox WHERE workspace_id = ${ws.id} AND event = 'video.created'`;
    expect(rows.map((r) => r.data)).toContainEqual({ video: { id: res.body.video.id, code: res.body.video.code, title: "Launch" } });
  });
});
