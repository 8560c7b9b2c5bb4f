/**
 * Player errors on /v1/collect: players send `{error_type, details, fatal}`
 * (hls.js's shape); players built before that sent free-text `message`, and
 * the events host keeps accepting and storing both.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { appAndWorkspace, type TestApp, type TestWorkspace } from "../helpers/app.ts";

let t: TestApp;
let ws: TestWorkspace;
let code: string;

beforeAll(async () => {
  ({ t, ws } = await appAndWorkspace());
  code = (await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "Errors" } })).body.video.code;
}, 120_000);

async function errorRows(session: string): Promise<{ properties: Record<string, string> }[]> {
  for (let i = 0; i < 100; i++) {
    const result = await t.deps.ch.query({
      query: "SELECT properties FROM events WHERE workspace_id = {w:UInt64} AND session_code = {s:String} AND event_type = 'error'",
      query_params: { w: ws.id, s: session },
      format: "JSONEachRow",
    });
    const rows = (await result.json()) as { properties: Record<string, string> }[];
    if (rows.length) return rows;
    await Bun.sleep(50);
  }
  return [];
}

const collect = (session: string, event: Record<string, unknown>) =>
  t.call("POST", "/v1/collect", { body: { workspace_code: ws.code, video_code: code, session_id: session, events: [{ type: "error", ...event }] } });

describe("error events", () => {
  test("stored with their kind, code and fatal flag", async () => {
    const session = `errors-${crypto.randomUUID()}`;
    expect((await collect(session, { error_type: "network", details: "manifestLoadError", fatal: true })).status).toBe(200);
    const [row] = await errorRows(session);
    expect(row!.properties).toMatchObject({ error_type: "network", details: "manifestLoadError", fatal: "true" });
  });

  test("an older player's free-text message is still accepted and kept", async () => {
    const session = `errors-${crypto.randomUUID()}`;
    expect((await collect(session, { message: "hls networkError: manifestLoadError", fatal: false })).status).toBe(200);
    const [row] = await errorRows(session);
    expect(row!.properties).toMatchObject({ message: "hls networkError: manifestLoadError", fatal: "false" });
  });

  test("an unknown kind is refused like any malformed field", async () => {
    const res = await collect(`errors-${crypto.randomUUID()}`, { error_type: "cosmic_ray", details: "x", fatal: true });
    expect(res.status).toBe(400);
  });
});
