/**
 * docs/api.md "Analytics reads" over rows written straight into ClickHouse; every
 * expected number below is computed by hand from the rows in `seed()`.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { insertEventRows } from "../helpers/event-rows.ts";
import { rangeMaskSql } from "../../server/api/analytics/queries.ts";

let now = Date.parse("2026-11-20T12:00:00Z");
let t: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;
let v1: number;
let v2: number;
let vCache: number;
let vTz: number;

interface Row {
  video_id: number;
  event_type: string;
  at: string;
  session?: string;
  device?: string;
  event?: string;
  event_id?: string;
  video_time?: number;
  watch_seconds?: number;
  value?: number | null;
  properties?: Record<string, string>;
}

export async function insertEvents(app: TestApp, workspaceId: number, rows: Row[]): Promise<void> {
  await insertEventRows(
    app.deps.ch,
    rows.map((r, i) => ({
      workspace_id: workspaceId,
      video_id: r.video_id,
      video_code: `code-${r.video_id}`,
      event_type: r.event_type,
      event: r.event ?? "",
      event_id: r.event_id ?? `e-${workspaceId}-${r.video_id}-${i}-${r.at}`,
      session_code: r.session ?? "",
      device_id: r.device ?? "",
      watch_seconds: r.watch_seconds ?? 0,
      video_time: r.video_time ?? 0,
      value: r.value ?? null,
      properties: r.properties ?? {},
      created_at: r.at.replace("T", " ").replace("Z", ""),
    })),
  );
}

/** A watched range [from, to) of a 100 s video. */
const watched = (video_id: number, session: string, device: string, at: string, from: number, to: number, type = "watched"): Row => ({
  video_id,
  event_type: type,
  session,
  device,
  at,
  video_time: from,
  watch_seconds: to - from,
  properties: { duration_s: "100" },
});

const createVideo = async (ws: TestWorkspace, title: string) => (await t.createVideo(ws, { title })).id;

/**
 * Video v1 (D = 100 s). Sessions (all times UTC):
 *  s0 d4 11-10 03:00 play, watched [0,100), ended             watch 100, complete
 *  s1 d1 11-10 10:00 play, [0,30), seek, [20,50), [0,10)      watch 70, union [0,50)
 *  s2 d1 11-11 09:00 play, pause, play, [0,100), ended         watch 100, complete, one play
 *  s3 d2 11-12 08:00 play, [0,3)                               watch 3, bounce
 *  s4 -- 11-12 23:30 play, [60,100), milestone 100            watch 40, complete
 *  s5 d3 11-12 12:00 [0,20) without a play                     not a play
 * plus conversions and a custom event on 11-11 and one conversion on 11-20.
 */
async function seed() {
  const P = (session: string, device: string, at: string): Row => ({ video_id: v1, event_type: "play", session, device, at });
  await insertEvents(t, a.id, [
    P("s0", "d4", "2026-11-10T03:00:00.000Z"),
    watched(v1, "s0", "d4", "2026-11-10T03:00:01.000Z", 0, 100),
    { video_id: v1, event_type: "ended", session: "s0", device: "d4", at: "2026-11-10T03:00:02.000Z", video_time: 100 },

    P("s1", "d1", "2026-11-10T10:00:00.000Z"),
    watched(v1, "s1", "d1", "2026-11-10T10:00:01.000Z", 0, 30),
    { video_id: v1, event_type: "seek", session: "s1", device: "d1", at: "2026-11-10T10:00:02.000Z", video_time: 20 },
    watched(v1, "s1", "d1", "2026-11-10T10:00:03.000Z", 20, 50),
    watched(v1, "s1", "d1", "2026-11-10T10:00:04.000Z", 0, 10),

    P("s2", "d1", "2026-11-11T09:00:00.000Z"),
    { video_id: v1, event_type: "pause", session: "s2", device: "d1", at: "2026-11-11T09:00:01.000Z", video_time: 40 },
    P("s2", "d1", "2026-11-11T09:00:02.000Z"),
    watched(v1, "s2", "d1", "2026-11-11T09:00:03.000Z", 0, 100),
    { video_id: v1, event_type: "ended", session: "s2", device: "d1", at: "2026-11-11T09:00:04.000Z", video_time: 100 },

    P("s3", "d2", "2026-11-12T08:00:00.000Z"),
    watched(v1, "s3", "d2", "2026-11-12T08:00:01.000Z", 0, 3),

    P("s4", "", "2026-11-12T23:30:00.000Z"),
    watched(v1, "s4", "", "2026-11-12T23:30:01.000Z", 60, 100),
    { video_id: v1, event_type: "milestone", session: "s4", at: "2026-11-12T23:30:02.000Z", properties: { percent: "100" } },

    watched(v1, "s5", "d3", "2026-11-12T12:00:00.000Z", 0, 20),

    { video_id: v1, event_type: "custom", event: "signup", session: "s2", at: "2026-11-11T10:00:00.000Z", value: 999 },
    {
      video_id: v1,
      event_type: "conversion",
      event: "purchase",
      event_id: "shop:1",
      at: "2026-11-11T11:00:00.000Z",
      value: 100,
      properties: { source: "postback", currency: "USD", is_test: "false" },
    },
    {
      video_id: v1,
      event_type: "conversion",
      event: "purchase",
      event_id: "shop:2",
      at: "2026-11-11T11:01:00.000Z",
      value: 50,
      properties: { verified: "0", source: "browser" },
    },
    {
      video_id: v1,
      event_type: "conversion",
      event: "purchase",
      event_id: "shop:3",
      at: "2026-11-11T11:02:00.000Z",
      value: 70,
      properties: { verified: "0", source: "browser" },
    },
    {
      video_id: v1,
      event_type: "conversion",
      event: "purchase",
      event_id: "shop:3",
      at: "2026-11-11T11:03:00.000Z",
      value: 75,
      properties: { verified: "1", source: "postback" },
    },
    {
      video_id: v1,
      event_type: "conversion",
      event: "upsell",
      event_id: "shop:4",
      at: "2026-11-11T11:04:00.000Z",
      value: 20,
      properties: { verified: "1", is_test: "true" },
    },
    { video_id: v1, event_type: "conversion", event: "", event_id: "x:5", at: "2026-11-11T11:05:00.000Z", value: 10, properties: { verified: "1" } },
    {
      video_id: v1,
      event_type: "conversion",
      event: "purchase",
      event_id: "shop:6",
      at: "2026-11-20T09:00:00.000Z",
      value: 500,
      properties: { verified: "1" },
    },

    // Another video of the same workspace: never counted for v1.
    { video_id: v2, event_type: "play", session: "other", device: "d9", at: "2026-11-11T09:00:00.000Z" },
    watched(v2, "other", "d9", "2026-11-11T09:00:01.000Z", 0, 100),
  ]);
}

beforeAll(async () => {
  t = await testApp({ clock: { now: () => now } });
  a = await t.workspace(["analytics:read", "videos:write", "videos:read"]);
  b = await t.workspace(["analytics:read", "videos:write"]);
  v1 = await createVideo(a, "analytics v1");
  v2 = await createVideo(a, "analytics v2");
  vCache = await createVideo(a, "analytics cache");
  vTz = await createVideo(a, "analytics half-hour zone");
  await seed();
}, 120_000);

const get = (path: string, ws: TestWorkspace = a, headers?: Record<string, string>) => t.call("GET", `/api/v1${path}`, { token: ws.token, headers });

describe("summary", () => {
  test("counts plays once per session, unique viewers by device, completions, watch time and bounces (UTC)", async () => {
    const res = await get(`/videos/${v1}/analytics/summary?from=2026-11-10&to=2026-11-12`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      video_id: v1,
      video_code: expect.any(String),
      from: "2026-11-10",
      to: "2026-11-12",
      tz: "UTC",
      // plays s0..s4 = 5; viewers d4, d1, d2, s4 = 4; completions s0, s2, s4 = 3;
      // watch 100 + 70 + 100 + 3 + 40 = 313 over 5 plays; bounce s3.
      summary: { plays: 5, unique_plays: 4, completion_count: 3, completion_rate: 0.6, avg_watch_time_s: 62.6, bounce_count: 1 },
    });
    expect(res.headers.get("cache-control")).toBe("private, max-age=60");
    expect(res.headers.get("etag")).toMatch(/^".+"$/);
  });

  test("tz moves the day boundaries", async () => {
    // Asia/Tokyo (UTC+9): 11-10..11-12 is [11-09 15:00Z, 11-12 15:00Z): s4 (23:30Z) falls out.
    const tokyo = await get(`/videos/${v1}/analytics/summary?from=2026-11-10&to=2026-11-12&tz=Asia/Tokyo`);
    expect(tokyo.status).toBe(200);
    expect(tokyo.body.tz).toBe("Asia/Tokyo");
    // 4 plays, viewers d4 d1 d2, completions s0 s2, watch 273.
    expect(tokyo.body.summary).toEqual({ plays: 4, unique_plays: 3, completion_count: 2, completion_rate: 0.5, avg_watch_time_s: 68.25, bounce_count: 1 });

    // America/New_York (UTC-5): [11-10 05:00Z, 11-13 05:00Z): s0 (03:00Z) falls out, s4 stays.
    const ny = await get(`/videos/${v1}/analytics/summary?from=2026-11-10&to=2026-11-12&tz=America/New_York`);
    // s1 s2 s3 s4; viewers d1 d2 s4; completions s2 s4; watch 70 + 100 + 3 + 40 = 213.
    expect(ny.body.summary).toEqual({ plays: 4, unique_plays: 3, completion_count: 2, completion_rate: 0.5, avg_watch_time_s: 53.25, bounce_count: 1 });
  });

  test("a half-hour zone splits at its own midnight, to the millisecond", async () => {
    // Asia/Kolkata is UTC+5:30: 11-13 00:00 local is 11-12 18:30:00.000Z.
    await insertEvents(t, a.id, [
      { video_id: vTz, event_type: "play", session: "k1", at: "2026-11-12T18:29:59.999Z" },
      { video_id: vTz, event_type: "play", session: "k2", at: "2026-11-12T18:30:00.000Z" },
    ]);
    const plays = async (query: string) => (await get(`/videos/${vTz}/analytics/summary?${query}`)).body.summary.plays;
    expect(await plays("from=2026-11-12&to=2026-11-12")).toBe(2);
    expect(await plays("from=2026-11-12&to=2026-11-12&tz=Asia/Kolkata")).toBe(1);
    expect(await plays("from=2026-11-13&to=2026-11-13&tz=Asia/Kolkata")).toBe(1);
    const events = await get(`/videos/${vTz}/analytics/events?from=2026-11-13&to=2026-11-13&tz=Asia/Kolkata`);
    expect(events.body.events.data.map((e: { session_code: string }) => e.session_code)).toEqual(["k2"]);
  });

  test("defaults: the last 30 days to today, UTC; empty windows read as zeros", async () => {
    const res = await get(`/videos/${v1}/analytics/summary`);
    expect(res.body).toMatchObject({ from: "2026-10-21", to: "2026-11-20", tz: "UTC" });
    expect(res.body.summary.plays).toBe(5);
    const empty = await get(`/videos/${v1}/analytics/summary?from=2026-11-13&to=2026-11-14`);
    expect(empty.body.summary).toEqual({ plays: 0, unique_plays: 0, completion_count: 0, completion_rate: 0, avg_watch_time_s: 0, bounce_count: 0 });
  });

  test("computed at most once per 60 s; a matching If-None-Match answers 304", async () => {
    const path = `/videos/${vCache}/analytics/summary?from=2026-11-01&to=2026-11-20`;
    const first = await get(path);
    expect(first.body.summary.plays).toBe(0);
    await insertEvents(t, a.id, [{ video_id: vCache, event_type: "play", session: "c1", at: "2026-11-15T10:00:00.000Z" }]);
    const cached = await get(path);
    expect(cached.body.summary.plays).toBe(0);
    expect(cached.headers.get("etag")).toBe(first.headers.get("etag")!);
    const notModified = await get(path, a, { "If-None-Match": first.headers.get("etag")! });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe("");
    now += 61_000;
    try {
      const fresh = await get(path, a, { "If-None-Match": first.headers.get("etag")! });
      expect(fresh.status).toBe(200);
      expect(fresh.body.summary.plays).toBe(1);
      expect(fresh.headers.get("etag")).not.toBe(first.headers.get("etag")!);
    } finally {
      now -= 61_000;
    }
  });
});

describe("retention", () => {
  test("one count per session per bucket: seeks and rewatches do not inflate it", async () => {
    const res = await get(`/videos/${v1}/analytics/retention?from=2026-11-10&to=2026-11-12&buckets=10`);
    expect(res.status).toBe(200);
    // Midpoints 5, 15, ..., 95 over 5 played sessions. s0, s2 everything; s1 union [0,50) even
    // though [0,10) was watched three times; s3 [0,3) holds no midpoint; s4 [60,100); s5 never played.
    expect(res.body).toEqual({
      video_id: v1,
      buckets: [0.6, 0.6, 0.6, 0.6, 0.6, 0.4, 0.6, 0.6, 0.6, 0.6].map((watch_pct, i) => ({ bucket_pct: i * 10, watch_pct })),
    });
  });

  test("uneven buckets, the default of 100, and tz", async () => {
    const three = await get(`/videos/${v1}/analytics/retention?from=2026-11-10&to=2026-11-12&buckets=3`);
    // Midpoints 16.67, 50, 83.33: s1 [0,50) covers only the first, s4 [60,100) only the last.
    expect(three.body.buckets).toEqual([
      { bucket_pct: 0, watch_pct: 0.6 },
      { bucket_pct: 33.33, watch_pct: 0.4 },
      { bucket_pct: 66.67, watch_pct: 0.6 },
    ]);
    const all = await get(`/videos/${v1}/analytics/retention?from=2026-11-10&to=2026-11-12`);
    expect(all.body.buckets).toHaveLength(100);
    // 1 s buckets: s3's [0,3) now holds the midpoints 0.5, 1.5 and 2.5.
    expect(all.body.buckets.slice(0, 4)).toEqual([
      { bucket_pct: 0, watch_pct: 0.8 },
      { bucket_pct: 1, watch_pct: 0.8 },
      { bucket_pct: 2, watch_pct: 0.8 },
      { bucket_pct: 3, watch_pct: 0.6 },
    ]);
    expect(all.body.buckets[55]).toEqual({ bucket_pct: 55, watch_pct: 0.4 });
    // Tokyo drops s4: buckets 6..9 are watched by s0 and s2 of 4 plays.
    const tokyo = await get(`/videos/${v1}/analytics/retention?from=2026-11-10&to=2026-11-12&tz=Asia/Tokyo&buckets=10`);
    expect(tokyo.body.buckets.map((b: { watch_pct: number }) => b.watch_pct)).toEqual([0.75, 0.75, 0.75, 0.75, 0.75, 0.5, 0.5, 0.5, 0.5, 0.5]);
    const empty = await get(`/videos/${v2}/analytics/retention?from=2026-11-13&to=2026-11-13&buckets=2`);
    expect(empty.body.buckets).toEqual([
      { bucket_pct: 0, watch_pct: 0 },
      { bucket_pct: 50, watch_pct: 0 },
    ]);
  });

  test("20 and 4 buckets, counted from the stored 100, at the same midpoints", async () => {
    const twenty = await get(`/videos/${v1}/analytics/retention?from=2026-11-10&to=2026-11-12&buckets=20`);
    // Midpoints 2.5, 7.5, ..., 97.5: s3's [0,3) holds the first; s1's [0,50) the first ten; s4's [60,100) the last eight.
    const shares = [0.8, ...Array(9).fill(0.6), 0.4, 0.4, ...Array(8).fill(0.6)];
    expect(twenty.body.buckets).toEqual(shares.map((watch_pct, i) => ({ bucket_pct: i * 5, watch_pct })));
    // Midpoints 12.5, 37.5, 62.5, 87.5: s1 covers the first two, s4 the last two.
    const four = await get(`/videos/${v1}/analytics/retention?from=2026-11-10&to=2026-11-12&buckets=4`);
    expect(four.body.buckets.map((b: { watch_pct: number }) => b.watch_pct)).toEqual([0.6, 0.6, 0.6, 0.6]);
  });

  test("buckets outside 1..200 is 422", async () => {
    for (const n of ["0", "201", "abc", "1.5"]) {
      const res = await get(`/videos/${v1}/analytics/retention?buckets=${n}`);
      expect(res.status).toBe(422);
      expect(res.body.errors.buckets).toBeArray();
    }
    // 200 half-second buckets (the wide-mask path): midpoints 0.25, 59.75, 60.25, 99.75.
    const fine = (await get(`/videos/${v1}/analytics/retention?from=2026-11-10&to=2026-11-12&buckets=200`)).body.buckets;
    expect(fine).toHaveLength(200);
    expect([fine[0], fine[119], fine[120], fine[199]]).toEqual([
      { bucket_pct: 0, watch_pct: 0.8 },
      { bucket_pct: 59.5, watch_pct: 0.4 },
      { bucket_pct: 60, watch_pct: 0.6 },
      { bucket_pct: 99.5, watch_pct: 0.6 },
    ]);
    // 128 buckets sits on the edge between the two mask widths; the last bucket is watched by s0, s2, s4.
    const edge = (await get(`/videos/${v1}/analytics/retention?from=2026-11-10&to=2026-11-12&buckets=128`)).body.buckets;
    expect(edge[127]).toEqual({ bucket_pct: 99.22, watch_pct: 0.6 });
    expect(edge[0]).toEqual({ bucket_pct: 0, watch_pct: 0.8 });
    const narrow = (await get(`/videos/${v1}/analytics/retention?from=2026-11-10&to=2026-11-12&buckets=127`)).body.buckets;
    expect(narrow[126]).toEqual({ bucket_pct: 99.21, watch_pct: 0.6 });
  });
});

describe("retention from stored masks (0005_retention_mask.sql)", () => {
  test("each slot row whose ranges came with its duration keeps, when written, the 100-bucket mask the read would build", async () => {
    const rows = await t.deps.ch.query({
      query: `SELECT count() AS n, countIf(mask100 != 0) AS set, countIf(mask100 != ${rangeMaskSql("100.", "duration_s", "UInt128")}) AS differ
              FROM analytics_session_slots WHERE workspace_id = {ws:UInt64} AND duration_s > 0
                AND mask_min_duration_s = duration_s AND mask_max_duration_s = duration_s`,
      query_params: { ws: a.id },
      format: "JSONEachRow",
    });
    const [counts] = (await rows.json()) as { n: string; set: string; differ: string }[];
    expect(Number(counts!.n)).toBeGreaterThan(0);
    expect(Number(counts!.set)).toBe(Number(counts!.n));
    expect(Number(counts!.differ)).toBe(0);
    // Written with the rows, not computed when read.
    const parts = await t.deps.ch.query({
      query:
        "SELECT count() AS n FROM system.parts_columns WHERE database = currentDatabase() AND table = 'analytics_session_slots' AND column = 'mask100' AND active",
      format: "JSONEachRow",
    });
    expect(Number(((await parts.json()) as { n: string }[])[0]!.n)).toBeGreaterThan(0);
  });

  test("a video whose ranges carry two durations is read with masks built for the longer one", async () => {
    const v = await createVideo(a, "analytics two durations");
    const at = (m: number) => `2026-11-15T10:0${m}:00.000Z`;
    await insertEvents(t, a.id, [
      { video_id: v, event_type: "play", session: "short", at: at(0) },
      // Watched [0, 50) of what was then a 100 s video: its stored mask covers buckets 0..49.
      { video_id: v, event_type: "watched", session: "short", at: at(1), video_time: 0, watch_seconds: 50, properties: { duration_s: "100" } },
      { video_id: v, event_type: "play", session: "long", at: at(2) },
      { video_id: v, event_type: "watched", session: "long", at: at(3), video_time: 100, watch_seconds: 100, properties: { duration_s: "200" } },
    ]);
    // Read over D = 200 s (2 s buckets): [0, 50) covers buckets 0..24 only, [100, 200) covers 50..99.
    const curve = (await get(`/videos/${v}/analytics/retention?from=2026-11-15&to=2026-11-15`)).body.buckets.map((b: { watch_pct: number }) => b.watch_pct);
    expect(curve).toEqual(Array.from({ length: 100 }, (_, i) => (i < 25 || i >= 50 ? 0.5 : 0)));
  });

  test("rows of a session merged from a write without the duration and one with it are read with built masks", async () => {
    const v = await createVideo(a, "analytics merged durations");
    const at = (m: number) => `2026-11-16T10:0${m}:00.000Z`;
    // One session, one 15-minute slot, two writes: the first range was sent before the player knew the duration.
    await insertEvents(t, a.id, [
      { video_id: v, event_type: "play", session: "m", at: at(0) },
      { video_id: v, event_type: "watched", session: "m", at: at(1), video_time: 0, watch_seconds: 30 },
    ]);
    await insertEvents(t, a.id, [
      { video_id: v, event_type: "watched", session: "m", at: at(2), video_time: 30, watch_seconds: 30, properties: { duration_s: "100" } },
    ]);
    // ClickHouse merges the two rows in the background; here, at once.
    await t.deps.ch.command({ query: "OPTIMIZE TABLE analytics_session_slots FINAL" });
    const merged = await t.deps.ch.query({
      query: "SELECT count() AS n FROM analytics_session_slots WHERE workspace_id = {ws:UInt64} AND video_id = {v:UInt64}",
      query_params: { ws: a.id, v },
      format: "JSONEachRow",
    });
    expect(Number(((await merged.json()) as { n: string }[])[0]!.n)).toBe(1);
    const curve = (await get(`/videos/${v}/analytics/retention?from=2026-11-16&to=2026-11-16`)).body.buckets.map((b: { watch_pct: number }) => b.watch_pct);
    expect(curve).toEqual(Array.from({ length: 100 }, (_, i) => (i < 60 ? 1 : 0)));
  });
});

describe("events", () => {
  test("paginated, filtered by event_type, newest first, ip_hash null", async () => {
    const all = await get(`/videos/${v1}/analytics/events?from=2026-11-10&to=2026-11-12`);
    expect(all.status).toBe(200);
    // 19 player rows + 1 custom + 6 conversion rows of 11-11 (the 11-20 one is outside).
    expect(all.body).toMatchObject({ video_id: v1, page: 1, per_page: 100, events: { total: 26 } });
    expect(all.body.events.data).toHaveLength(26);
    expect(all.body.events.data[0]).toEqual({
      event_type: "milestone",
      event: null,
      session_code: "s4",
      watch_seconds: 0,
      video_time: 0,
      created_at: "2026-11-12T23:30:02.000Z",
      ip_hash: null,
    });

    const plays = await get(`/videos/${v1}/analytics/events?from=2026-11-10&to=2026-11-12&event_type=play&per_page=2&page=2`);
    expect(plays.body).toMatchObject({ page: 2, per_page: 2, events: { total: 6 } });
    // Newest first: s4, s3 | s2 (second play), s2 (first play) | s1, s0.
    expect(plays.body.events.data.map((e: { session_code: string; created_at: string }) => [e.session_code, e.created_at])).toEqual([
      ["s2", "2026-11-11T09:00:02.000Z"],
      ["s2", "2026-11-11T09:00:00.000Z"],
    ]);

    const ranges = await get(`/videos/${v1}/analytics/events?from=2026-11-12&to=2026-11-12&event_type=watched`);
    expect(ranges.body.events.data.map((e: { video_time: number; watch_seconds: number }) => [e.video_time, e.watch_seconds])).toEqual([
      [60, 40],
      [0, 20],
      [0, 3],
    ]);

    const custom = await get(`/videos/${v1}/analytics/events?from=2026-11-11&to=2026-11-11&event_type=custom`);
    expect(custom.body.events.data).toEqual([expect.objectContaining({ event_type: "custom", event: "signup", session_code: "s2" })]);
  });

  test("from defaults to 7 days ago", async () => {
    const res = await get(`/videos/${v1}/analytics/events`);
    expect(res.body.events.total).toBe(1);
    expect(res.body.events.data[0]).toMatchObject({ event_type: "conversion", event: "purchase", created_at: "2026-11-20T09:00:00.000Z" });
  });

  test("per_page and page bounds are 422", async () => {
    for (const q of ["per_page=501", "per_page=0", "page=0", "per_page=x"]) {
      const res = await get(`/videos/${v1}/analytics/events?${q}`);
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual([q.split("=")[0]!]);
    }
    expect((await get(`/videos/${v1}/analytics/events?per_page=500`)).status).toBe(200);
  });
});

describe("conversions", () => {
  test("grouped by name; revenue from verified, non-test rows only; a verified postback replaces its browser row", async () => {
    const res = await get(`/videos/${v1}/analytics/conversions?from=2026-11-10&to=2026-11-12`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      video_id: v1,
      from: "2026-11-10",
      to: "2026-11-12",
      // purchase: shop:1 (100), shop:2 unverified, shop:3 browser 70 + verified 75 = one sale of 75.
      conversions: [
        { event_name: "purchase", count: 3, total_revenue: 175 },
        { event_name: "conversion", count: 1, total_revenue: 10 },
        { event_name: "upsell", count: 1, total_revenue: 0 },
      ],
    });
    const later = await get(`/videos/${v1}/analytics/conversions`);
    expect(later.body).toMatchObject({ from: "2026-10-21", to: "2026-11-20" });
    expect(later.body.conversions[0]).toEqual({ event_name: "purchase", count: 4, total_revenue: 675 });
  });
});

describe("validation, scope and isolation", () => {
  const routes = ["summary", "retention", "events", "conversions"];

  test("bad dates, to before from and an unknown tz are 422 in the validation shape", async () => {
    for (const route of routes) {
      const base = `/videos/${v1}/analytics/${route}`;
      const badDate = await get(`${base}?from=2026-02-30`);
      expect(badDate.status).toBe(422);
      expect(badDate.body).toEqual({ message: expect.any(String), errors: { from: [expect.any(String)] } });
      expect((await get(`${base}?to=yesterday`)).body.errors.to).toBeArray();
      const reversed = await get(`${base}?from=2026-11-12&to=2026-11-10`);
      expect(reversed.status).toBe(422);
      expect(reversed.body.errors.to).toEqual(["The to must be a date on or after from."]);
      const tz = await get(`${base}?tz=Mars/Olympus`);
      expect(tz.status).toBe(422);
      expect(tz.body.errors.tz).toBeArray();
    }
  });

  test("another workspace's video, an unknown id and a non-numeric id are 404 Video not found", async () => {
    for (const route of routes) {
      for (const [ws, id] of [
        [b, v1],
        [a, 999999999],
        [a, "abc"],
      ] as const) {
        const res = await get(`/videos/${id}/analytics/${route}?from=2026-11-10&to=2026-11-12`, ws);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: { code: "NOT_FOUND", message: "Video not found" } });
      }
    }
  });

  test("a workspace never reads another's rows even for its own video ids", async () => {
    // Rows written under workspace b for a's video id must not count for a, and b cannot read that id.
    await insertEvents(t, b.id, [{ video_id: v1, event_type: "play", session: "intruder", at: "2026-11-11T12:00:00.000Z" }]);
    const res = await get(`/videos/${v1}/analytics/events?from=2026-11-11&to=2026-11-11&event_type=play`);
    expect(res.body.events.data.map((e: { session_code: string }) => e.session_code)).toEqual(["s2", "s2"]);
    const own = await createVideo(b, "b video");
    const mine = await get(`/videos/${own}/analytics/summary?from=2026-11-10&to=2026-11-12`, b);
    expect(mine.body.summary.plays).toBe(0);
  });

  test("needs analytics:read", async () => {
    const token = await a.mint(["videos:read"]);
    const res = await t.call("GET", `/api/v1/videos/${v1}/analytics/summary`, { token: token.secret });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("INSUFFICIENT_SCOPE");
  });
});
