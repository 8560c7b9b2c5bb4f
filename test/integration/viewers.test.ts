/**
 * Who watched what (docs/api.md "Viewers"), driven through the real events host:
 * player batches (`/v1/collect`) with watched ranges, seeks, a CTA click, a quiz
 * answer and lead forms, a sale through `POST /conversions`, then the viewers list,
 * one viewer's timeline and heatmap; another workspace sees none of it.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { appAndWorkspace, invalidFields, type TestApp, type TestVideo, type TestWorkspace } from "../helpers/app.ts";
import { processNextExport } from "../../server/workers/export-builder.ts";

let t: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;
let video: TestVideo;
let other: TestVideo;
const DURATION = 20;
const email = `ann-${crypto.randomUUID().slice(0, 8)}@example.com`;
const s1 = crypto.randomUUID();
const s2 = crypto.randomUUID();
const s3 = crypto.randomUUID();
let at = Date.now() - 30 * 60_000;

async function collect(session: string, device: string, events: Record<string, unknown>[], videoCode = video.code) {
  const res = await t.app.handle(
    new Request("http://127.0.0.1:8080/v1/collect", {
      method: "POST",
      headers: { "content-type": "text/plain", "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36" },
      body: JSON.stringify({ workspace_code: a.code, video_code: videoCode, session_id: session, device_id: device, events }),
    }),
  );
  expect(res.status).toBe(200);
}
const ev = (type: string, fields: Record<string, unknown> = {}) => ({ type, t: (at += 1000), video_time: 0, ...fields });
const watched = (from: number, to: number) => ev("watched", { from_s: from, to_s: to, duration_s: DURATION, video_time: to });
const get = (path: string, token = a.token) => t.call("GET", path, { token });

beforeAll(async () => {
  ({ t, ws: a } = await appAndWorkspace());
  b = await t.workspace();
  video = await t.createVideo(a, { title: "VSL" });
  other = await t.createVideo(a, { title: "Other" });
  // Ann, first visit: watches 0-5 twice (a heartbeat splits the first time), skips to 10, watches to the end, clicks, answers, leaves her email.
  await collect(s1, "device-1", [
    ev("load", { page_host: "shop.example", page_path: "/offer", utm_source: "newsletter" }),
    ev("play"),
    watched(0, 2),
    watched(2, 5),
  ]);
  await collect(s1, "device-1", [
    ev("seek", { from: 5, to: 0 }),
    watched(0, 5),
    ev("seek", { from: 5, to: 10 }),
    watched(10, 20),
    ev("cta_click", { card_index: 0, video_time: 12 }),
    ev("quiz_answered", { properties: { question_id: "q1", choice_id: "yes" }, video_time: 14 }),
    ev("lead_form_submitted", { email, video_time: 15 }),
    ev("ended", { video_time: 20 }),
  ]);
  // Ann again, from another browser: the same email, then 0-4.
  await collect(s2, "device-2", [ev("load"), ev("lead_form_submitted", { email }), ev("play"), watched(0, 4), ev("pause", { video_time: 4 })]);
  // Someone who never says who they are; and Ann's session on another video stays off this one.
  await collect(s3, "device-3", [ev("load"), ev("play"), watched(0, 3), ev("pause", { video_time: 3 })]);
  await collect(crypto.randomUUID(), "device-1", [ev("load"), ev("play"), watched(0, 7)], other.code);
  const sale = await t.call("POST", "/api/v1/conversions", {
    token: a.token,
    body: { video_code: video.code, conversion_id: `order-${s1}`, conversion_value: 49.5, conversion_currency: "USD", session_code: s1 },
  });
  expect(sale.status).toBe(201);
}, 60_000);

describe("viewers of a video", () => {
  test("lists the identified viewer with her email and the anonymous one without identity, most recently seen first", async () => {
    const res = await get(`/api/v1/videos/${video.id}/viewers`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.current_page).toBe(1);
    const [anon, ann] = res.body.data;
    expect(anon).toMatchObject({ identified: false, email: null, external_id: null, sessions: 1, watch_time_s: 3, furthest_percent: 15, plays: 1, leads: 0 });
    expect(anon).toMatchObject({ orders: 0, revenue: [] });
    expect(ann).toMatchObject({
      identified: true,
      email,
      sessions: 2,
      watch_time_s: 24,
      furthest_percent: 100,
      plays: 2,
      leads: 2,
      orders: 1,
      revenue: [{ currency: "USD", amount: 49.5 }],
    });
    expect(Date.parse(ann.first_seen_at)).toBeLessThan(Date.parse(ann.last_seen_at));
    expect(Date.parse(anon.last_seen_at)).toBeGreaterThan(Date.parse(ann.last_seen_at));

    const identified = await get(`/api/v1/videos/${video.id}/viewers?identified=true`);
    expect(identified.body.data.map((v: { email: string }) => v.email)).toEqual([email]);
    const paged = await get(`/api/v1/videos/${video.id}/viewers?per_page=1&page=2`);
    expect([paged.body.total, paged.body.last_page, paged.body.data.map((v: { viewer_id: number }) => v.viewer_id)]).toEqual([2, 2, [ann.viewer_id]]);
    const before = await get(`/api/v1/videos/${video.id}/viewers?from=2020-01-01&to=2020-01-31`);
    expect([before.body.total, before.body.data]).toEqual([0, []]);
  });

  test("a viewer's timeline: each session oldest first, with source, ranges and what happened", async () => {
    const list = (await get(`/api/v1/videos/${video.id}/viewers?identified=true`)).body.data;
    const res = await get(`/api/v1/videos/${video.id}/viewers/${list[0].viewer_id}`);
    expect(res.status).toBe(200);
    expect(res.body.viewer).toEqual(list[0]);
    const [first, second] = res.body.sessions;
    expect(res.body.sessions.map((s: { session_id: string }) => s.session_id)).toEqual([s1, s2]);
    expect(first).toMatchObject({
      source: "newsletter",
      browser: "Chrome",
      watch_time_s: 20,
      watched_ranges: [
        [0, 5],
        [0, 5],
        [10, 20],
      ],
    });
    expect(first.events.map((e: { type: string }) => e.type)).toEqual(["play", "seek", "seek", "cta_click", "quiz_answer", "lead", "ended", "sale"]);
    expect(first.events[1]).toMatchObject({ video_time: 0, detail: { from_s: 5 } });
    expect(first.events[3].detail).toEqual({ card_index: 0 });
    expect(first.events[4].detail).toEqual({ question_id: "q1", choice_id: "yes", correct: null });
    expect(first.events[7]).toMatchObject({ video_time: null, detail: { amount: 49.5, currency: "USD" } });
    expect(second).toMatchObject({ source: null, watched_ranges: [[0, 4]] });
    expect(second.events.map((e: { type: string }) => e.type)).toEqual(["lead", "play", "pause"]);
    expect(JSON.stringify(res.body)).not.toMatch(/\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b/);
  });

  test("a viewer's heatmap counts each part watched across sessions; skipped parts are 0", async () => {
    const [ann] = (await get(`/api/v1/videos/${video.id}/viewers?identified=true`)).body.data;
    const res = await get(`/api/v1/videos/${video.id}/viewers/${ann.viewer_id}/heatmap?buckets=4`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ buckets: 4, duration_s: DURATION, counts: [3, 0, 1, 1] });
    const fine = (await get(`/api/v1/videos/${video.id}/viewers/${ann.viewer_id}/heatmap?buckets=20`)).body.counts;
    expect(fine).toEqual([3, 3, 3, 3, 2, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect((await get(`/api/v1/videos/${video.id}/viewers/${ann.viewer_id}/heatmap`)).body.counts).toHaveLength(100);
  });

  test("bad input is a 422 naming the parameter; unknown ids are 404", async () => {
    const [ann] = (await get(`/api/v1/videos/${video.id}/viewers?identified=true`)).body.data;
    expect(invalidFields(await get(`/api/v1/videos/${video.id}/viewers/${ann.viewer_id}/heatmap?buckets=0`))).toEqual(["buckets"]);
    expect(invalidFields(await get(`/api/v1/videos/${video.id}/viewers/${ann.viewer_id}/heatmap?buckets=201`))).toEqual(["buckets"]);
    expect(invalidFields(await get(`/api/v1/videos/${video.id}/viewers?per_page=201`))).toEqual(["per_page"]);
    expect(invalidFields(await get(`/api/v1/videos/${video.id}/viewers?identified=yes`))).toEqual(["identified"]);
    expect(invalidFields(await get(`/api/v1/videos/${video.id}/viewers?from=2026-13-01`))).toEqual(["from"]);
    for (const path of [`/api/v1/videos/999999999/viewers`, `/api/v1/videos/${video.id}/viewers/999999999`, `/api/v1/videos/${video.id}/viewers/abc/heatmap`]) {
      const res = await get(path);
      expect([path, res.status, res.body.error.code]).toEqual([path, 404, "NOT_FOUND"]);
    }
    // Ann's first device also played the other video, in a session of its own: that video lists that session only.
    expect((await get(`/api/v1/videos/${other.id}/viewers/${ann.viewer_id}`)).body.sessions).toHaveLength(1);
  });

  test("another workspace sees none of it; the scope is analytics:read", async () => {
    const [ann] = (await get(`/api/v1/videos/${video.id}/viewers?identified=true`)).body.data;
    const own = await t.createVideo(b);
    for (const path of [
      `/api/v1/videos/${video.id}/viewers`,
      `/api/v1/videos/${video.id}/viewers/${ann.viewer_id}`,
      `/api/v1/videos/${own.id}/viewers/${ann.viewer_id}/heatmap`,
    ]) {
      expect((await get(path, b.token)).status).toBe(404);
    }
    const { secret } = await a.mint(["videos:read"]);
    const refused = await get(`/api/v1/videos/${video.id}/viewers`, secret);
    expect([refused.status, refused.body.error.code, refused.body.error.required]).toEqual([403, "INSUFFICIENT_SCOPE", "analytics:read"]);
  });
});

const today = new Date().toISOString().slice(0, 10);
// The events start half an hour ago: yesterday (UTC) for a run just after midnight.
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
/** An export of both videos, as the file a seller downloads. */
async function exported(type: string, format = "csv"): Promise<string> {
  const created = await t.call("POST", "/api/v1/exports", {
    token: a.token,
    body: { video_ids: [video.id, other.id], from: yesterday, to: today, format, type },
  });
  expect(created.status).toBe(202);
  for (let i = 0; i < 20 && (await processNextExport(t.deps)); i++);
  const file = await get(`/api/v1/exports/${created.body.export_id}/download`);
  expect(file.status).toBe(200);
  return file.text;
}
const exportedEvents = () => exported("events");

describe("the viewer's watch percent reaches the seller", () => {
  test("lead.captured carries how far the viewer had watched when they left their email", async () => {
    const [captured] = await t.deps.sql`SELECT data FROM outbox WHERE workspace_id = ${a.id} AND event = 'lead.captured'`;
    expect(captured!.data).toMatchObject({ video_code: video.code, identity: { email }, watch_percent: 100 });
  });

  test("the leads export: a row per video and identified viewer, with the watch percent", async () => {
    const [ann] = (await get(`/api/v1/videos/${video.id}/viewers?identified=true`)).body.data;
    const lines = (await exported("leads")).trim().split(/\r?\n/);
    expect(lines[0]).toBe("video_id,video_code,viewer_id,email,external_id,first_seen_at,last_seen_at,sessions,watch_time_s,watch_percent,plays,leads,orders");
    expect(lines.slice(1).map((l) => l.split(",").slice(0, 4).concat(l.split(",").slice(7)))).toEqual([
      [String(video.id), video.code, String(ann.viewer_id), email, "2", "24", "100", "2", "2", "1"],
      [String(other.id), other.code, String(ann.viewer_id), email, "1", "7", "35", "1", "0", "0"],
    ]);
    const json = JSON.parse(await exported("leads", "json"));
    expect(json.map((r: { email: string; watch_percent: number }) => [r.email, r.watch_percent])).toEqual([
      [email, 100],
      [email, 35],
    ]);
  });
});

describe("erasure", () => {
  const eventSessions = async (v: TestVideo) =>
    (await get(`/api/v1/videos/${v.id}/analytics/events?per_page=500`)).body.events.data.map((e: { session_code: string }) => e.session_code);

  test("DELETE /viewers/{viewer} erases the viewer from every read and export; their sale stays, naming nobody", async () => {
    const [ann] = (await get(`/api/v1/videos/${video.id}/viewers?identified=true`)).body.data;
    const [anon] = (await get(`/api/v1/videos/${video.id}/viewers?identified=false`)).body.data;
    expect((await exportedEvents()).includes(s1)).toBe(true);
    expect(await eventSessions(video)).toContain(s2);
    const salesBefore = (await get(`/api/v1/videos/${video.id}/analytics/conversions`)).body.conversions;

    // Another workspace, and a token that only reads, cannot erase.
    const elsewhere = await t.call("DELETE", `/api/v1/viewers/${ann.viewer_id}`, { token: b.token });
    expect([elsewhere.status, elsewhere.body.message]).toEqual([404, `No query results for model [Viewer] ${ann.viewer_id}`]);
    const { secret } = await a.mint(["analytics:read"]);
    const refused = await t.call("DELETE", `/api/v1/viewers/${ann.viewer_id}`, { token: secret });
    expect([refused.status, refused.body.error.required]).toEqual([403, "events:write"]);
    expect((await get(`/api/v1/videos/${video.id}/viewers`)).body.total).toBe(2);

    const erased = await t.call("DELETE", `/api/v1/viewers/${ann.viewer_id}`, { token: a.token });
    expect([erased.status, erased.body]).toEqual([200, { deleted: true }]);

    // Gone from the viewers reads of both videos she played.
    const list = await get(`/api/v1/videos/${video.id}/viewers`);
    expect([list.body.total, list.body.data.map((v: { viewer_id: number }) => v.viewer_id)]).toEqual([1, [anon.viewer_id]]);
    expect((await get(`/api/v1/videos/${other.id}/viewers`)).body.total).toBe(0);
    expect((await get(`/api/v1/videos/${video.id}/viewers/${ann.viewer_id}`)).status).toBe(404);
    expect((await get(`/api/v1/videos/${video.id}/viewers/${ann.viewer_id}/heatmap`)).status).toBe(404);
    // Gone from the events read and from a new export; the anonymous viewer stays.
    const sessions = await eventSessions(video);
    expect(sessions).not.toContain(s1);
    expect(sessions).not.toContain(s2);
    expect(sessions).toContain(s3);
    expect(await eventSessions(other)).toEqual([]);
    const file = await exportedEvents();
    for (const gone of [s1, s2, email, "device-1", "device-2"]) expect(file.includes(gone)).toBe(false);
    expect(file.includes(s3)).toBe(true);
    expect((await exported("leads")).includes(email)).toBe(false);
    // Her email is no longer a lead, and no key of hers resolves.
    expect(await t.deps.sql`SELECT 1 FROM leads WHERE workspace_id = ${a.id} AND email = ${email}`).toHaveLength(0);
    expect(await t.deps.sql`SELECT 1 FROM viewer_keys WHERE workspace_id = ${a.id} AND viewer_id = ${ann.viewer_id}`).toHaveLength(0);
    const lead = await t.call("GET", `/v1/lead-status?workspace_code=${a.code}&video_code=${video.code}&device_id=device-1`);
    expect(lead.body).toEqual({ submitted: false });
    // The sale stays the seller's record, naming nobody.
    expect((await get(`/api/v1/videos/${video.id}/analytics/conversions`)).body.conversions).toEqual(salesBefore);
    const [sale] = await t.deps.sql`SELECT session_code, viewer_id, value::float AS value FROM conversions WHERE workspace_id = ${a.id}`;
    expect(sale).toEqual({ session_code: null, viewer_id: null, value: 49.5 });

    expect((await t.call("DELETE", `/api/v1/viewers/${ann.viewer_id}`, { token: a.token })).status).toBe(404);
  });
});
