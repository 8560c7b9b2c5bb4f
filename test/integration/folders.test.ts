/** docs/api.md "Folders". */
import { beforeAll, describe, expect, test } from "bun:test";
import { appAndWorkspace, type TestApp, type TestWorkspace, UNLIMITED } from "../helpers/app.ts";

let t: TestApp;
let ws: TestWorkspace;
beforeAll(async () => ({ t, ws } = await appAndWorkspace({ config: UNLIMITED })), 60_000);

const folderCount = async (workspaceId: number) =>
  (await t.deps.sql`SELECT count(*)::int AS n FROM folders WHERE workspace_id = ${workspaceId}`)[0]!.n as number;

describe("folders", () => {
  test("create → 201 {folder} with every field", async () => {
    const res = await t.call("POST", "/api/v1/folders", { token: ws.token, body: { name: "Launch week" } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(["folder"]);
    expect(res.body.folder).toEqual({
      id: expect.any(Number),
      parent_id: null,
      name: "Launch week",
      color: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(new Date(res.body.folder.created_at).toISOString()).toBe(res.body.folder.created_at);
    const [row] = await t.deps.sql`SELECT workspace_id, name FROM folders WHERE id = ${res.body.folder.id}`;
    expect(row).toEqual({ workspace_id: ws.id, name: "Launch week" });
  });

  test("parent_id nests a folder, to any depth", async () => {
    const top = (await t.call("POST", "/api/v1/folders", { token: ws.token, body: { name: "top" } })).body.folder;
    const mid = await t.call("POST", "/api/v1/folders", { token: ws.token, body: { name: "mid", parent_id: top.id } });
    expect(mid.status).toBe(201);
    expect(mid.body.folder.parent_id).toBe(top.id);
    const leaf = await t.call("POST", "/api/v1/folders", { token: ws.token, body: { name: "leaf", parent_id: mid.body.folder.id, color: "#ff0000" } });
    expect(leaf.status).toBe(201);
    expect(leaf.body.folder).toMatchObject({ parent_id: mid.body.folder.id, name: "leaf", color: "#ff0000" });
    const explicitNull = await t.call("POST", "/api/v1/folders", { token: ws.token, body: { name: "root again", parent_id: null } });
    expect(explicitNull.status).toBe(201);
    expect(explicitNull.body.folder.parent_id).toBeNull();
  });

  test("an unknown or foreign parent_id → 422 FOLDER_NOT_FOUND and nothing is created", async () => {
    const other = await t.workspace();
    const foreign = (await t.call("POST", "/api/v1/folders", { token: other.token, body: { name: "theirs" } })).body.folder;
    for (const parentId of [foreign.id, 987654321]) {
      const before = await folderCount(ws.id);
      const res = await t.call("POST", "/api/v1/folders", { token: ws.token, body: { name: "orphan", parent_id: parentId } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: { code: "FOLDER_NOT_FOUND", message: expect.any(String) } });
      expect(await folderCount(ws.id)).toBe(before);
    }
    expect(await folderCount(other.id)).toBe(1);
  });

  test("validation: name missing, empty, too long or not a string; bad parent_id → 422 {message, errors}", async () => {
    for (const [body, field] of [
      [{}, "name"],
      [{ name: "" }, "name"],
      [{ name: "x".repeat(256) }, "name"],
      [{ name: 42 }, "name"],
      [{ name: "ok", parent_id: "abc" }, "parent_id"],
      [{ name: "ok", parent_id: 0 }, "parent_id"],
    ] as const) {
      const before = await folderCount(ws.id);
      const res = await t.call("POST", "/api/v1/folders", { token: ws.token, body });
      expect(res.status).toBe(422);
      expect(res.body.message).toBeString();
      expect(res.body.errors[field]).toBeArray();
      expect(await folderCount(ws.id)).toBe(before);
    }
  });

  test("list → every folder of the workspace with videos_count", async () => {
    const lw = await t.workspace();
    const a = (await t.call("POST", "/api/v1/folders", { token: lw.token, body: { name: "a" } })).body.folder;
    const b = (await t.call("POST", "/api/v1/folders", { token: lw.token, body: { name: "b", parent_id: a.id } })).body.folder;
    for (const title of ["one", "two"]) await t.call("POST", "/api/v1/videos", { token: lw.token, body: { title, folder_id: a.id } });
    const moved = await t.call("POST", "/api/v1/videos", { token: lw.token, body: { title: "three", folder_id: b.id } });
    await t.call("POST", "/api/v1/videos", { token: lw.token, body: { title: "loose" } });

    const res = await t.call("GET", "/api/v1/folders", { token: lw.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      folders: [
        { ...a, videos_count: 2 },
        { ...b, videos_count: 1 },
      ],
    });
    // A folder changes only where a video is listed: moving the video moves the count.
    await t.call("PATCH", `/api/v1/videos/${moved.body.video.id}`, { token: lw.token, body: { folder_id: a.id } });
    const after = await t.call("GET", "/api/v1/folders", { token: lw.token });
    expect(after.body.folders.map((f: any) => f.videos_count)).toEqual([3, 0]);
    // Deleting a video lowers the count.
    await t.call("DELETE", `/api/v1/videos/${moved.body.video.id}`, { token: lw.token });
    expect((await t.call("GET", "/api/v1/folders", { token: lw.token })).body.folders[0].videos_count).toBe(2);
  });

  test("an empty workspace lists no folders", async () => {
    const empty = await t.workspace();
    const res = await t.call("GET", "/api/v1/folders", { token: empty.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ folders: [] });
  });
});
