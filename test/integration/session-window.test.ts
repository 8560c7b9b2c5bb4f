/**
 * Which window a session counts in (README "What the numbers mean"): the seller metrics
 * count a session whole in the window it started in, even when its player's later
 * batches arrive after midnight. Driven through `/v1/collect` with the server's clock
 * moved between batches; the later batch is a separate insert, so the read also merges
 * a session's rows that the background has not merged yet.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";

const DAY1 = "2026-11-10";
const DAY2 = "2026-11-11";
const DURATION = 600;

let now = Date.parse(`${DAY1}T23:50:00Z`);
let t: TestApp;
let ws: TestWorkspace;
let video: { id: number; code: string };

async function collect(session: string, events: Record<string, unknown>[]) {
  const res = await t.app.handle(
    new Request("http://127.0.0.1:8080/v1/collect", {
      method: "POST",
      headers: { "content-type": "text/plain", "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/130.0 Safari/537.36" },
      body: JSON.stringify({ workspace_code: ws.code, video_code: video.code, session_id: session, device_id: `d-${session}`, events }),
    }),
  );
  expect(res.status).toBe(200);
}

const overview = async (day: string) =>
  (await t.call("GET", `/api/v1/videos/${video.id}/analytics/overview?from=${day}&to=${day}`, { token: ws.token })).body.overview;

beforeAll(async () => {
  t = await testApp({ clock: { now: () => now } });
  ws = await t.workspace();
  video = (await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "late night" } })).body.video;
  // 23:50 on day 1: a session loads, plays and watches its first minute.
  await collect("late", [{ type: "load" }, { type: "play" }, { type: "watched", from_s: 0, to_s: 60, duration_s: DURATION }]);
  // 00:20 on day 2: its player sends the next three minutes; another session autoplays muted.
  now = Date.parse(`${DAY2}T00:20:00Z`);
  await collect("late", [{ type: "watched", from_s: 60, to_s: 240, duration_s: DURATION }]);
  await collect("early", [{ type: "load" }, { type: "autoplay" }]);
});

describe("a session's window", () => {
  test("a session counts, whole, on the day it started: its watching after midnight included", async () => {
    const o = await overview(DAY1);
    expect(o).toMatchObject({ impressions: 1, plays: 1, autoplays: 0, unique_viewers: 1, avg_watch_time_s: 240, avg_percent_watched: 40 });
  });

  test("the next day counts only the sessions that started on it", async () => {
    const o = await overview(DAY2);
    expect(o).toMatchObject({ impressions: 1, plays: 0, autoplays: 1, unique_viewers: 1, avg_watch_time_s: null });
  });

  test("a breakdown lists the session once, in its start window", async () => {
    const rows = (await t.call("GET", `/api/v1/videos/${video.id}/analytics/breakdown?by=browser&from=${DAY1}&to=${DAY2}`, { token: ws.token })).body.rows;
    expect(rows).toEqual([expect.objectContaining({ value: "Chrome", impressions: 2, plays: 1, avg_watch_time_s: 240 })]);
  });
});
