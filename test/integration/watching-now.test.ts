/**
 * Home's "watching now" (GET /api/v1/analytics/live): the workspace's viewers whose
 * player sent a heartbeat in the last minute, through the real events host and
 * ClickHouse; another workspace's viewers never count.
 */
import { expect, test } from "bun:test";
import { testApp, UNLIMITED, type TestApp, type TestWorkspace } from "../helpers/app.ts";

/** A session's batch: a load, and a heartbeat of watched ranges when `watching`. */
async function visit(t: TestApp, ws: TestWorkspace, videoCode: string, session: string, at: number, watching: boolean) {
  const res = await t.call("POST", "/v1/collect", {
    headers: { "Content-Type": "text/plain" },
    body: JSON.stringify({
      workspace_code: ws.code,
      video_code: videoCode,
      session_id: session,
      device_id: `device-${session}`,
      events: [
        { type: "load", t: at, video_time: 0 },
        ...(watching ? [{ type: "heartbeat", t: at + 1, video_time: 10, ranges: [{ from_s: 0, to_s: 10 }] }] : []),
      ],
    }),
  });
  expect(res.status).toBe(200);
}

test("counts the sessions with a heartbeat in the last minute, in this workspace only", async () => {
  let now = Date.now();
  const t = await testApp({ fixturePlayer: true, config: UNLIMITED, clock: { now: () => now } });
  const [ws, other] = [await t.workspace(), await t.workspace()];
  const video = await t.createVideo(ws);
  const theirs = await t.createVideo(other);
  const live = async (w: TestWorkspace) => (await t.call("GET", "/api/v1/analytics/live", { token: w.token })).body.watching_now;

  expect(await live(ws)).toBe(0);
  await visit(t, ws, video.code, `live-a-${now}`, now, true);
  await visit(t, ws, video.code, `live-b-${now}`, now, true);
  await visit(t, ws, video.code, `live-c-${now}`, now, false);
  await visit(t, other, theirs.code, `live-d-${now}`, now, true);
  expect(await live(ws)).toBe(2);
  expect(await live(other)).toBe(1);

  // A minute and more without a heartbeat: nobody is watching any more.
  now += 61_000;
  expect(await live(ws)).toBe(0);
  const analyst = await ws.mint(["videos:read"]);
  expect((await t.call("GET", "/api/v1/analytics/live", { token: analyst.secret })).status).toBe(403);
});
