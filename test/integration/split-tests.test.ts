/**
 * The split-test resource (beyond the core interface): create, read, list, pause, resume, end;
 * validation in docs/api.md's 422 shape and 404 for other workspaces; what the events
 * host serves a viewer in each state; the variation carried by player events, custom
 * events and sales traced to the session; the control's embed serving the test; and a
 * `play` goal decided and promoted to everyone.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, testApp, UNLIMITED, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { collect, inParallel, newViewer, served, type Viewer } from "../helpers/split-viewers.ts";
import { loadConfig } from "../../server/config.ts";
import { evaluateSplitTests } from "../../server/api/split-tests/report.ts";

let t: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;
let videos: { id: number; code: string }[];
let foreign: { id: number; code: string };

const base = loadConfig({});

beforeAll(async () => {
  t = await testApp({ config: { ...UNLIMITED, eventLimits: { ...base.eventLimits, perIpPerMinute: 1_000_000, perWorkspacePerMinute: 1_000_000 } } });
  [a, b] = await Promise.all([t.workspace(), t.workspace()]);
  videos = [];
  for (const title of ["Control", "Variation B", "Variation C", "Variation D", "Variation E", "Variation F"]) videos.push(await t.createVideo(a, { title }));
  foreign = await t.createVideo(b, { title: "B's video" });
}, 60_000);

const create = (ws: TestWorkspace, body: unknown) => t.call("POST", "/api/v1/split-tests", { token: ws.token, body });
const pair = (x: number, y: number, weights = [50, 50]) => [
  { video_id: videos[x]!.id, weight: weights[0] },
  { video_id: videos[y]!.id, weight: weights[1] },
];
const testsOf = async (ws: TestWorkspace) => (await t.deps.sql`SELECT count(*)::int AS n FROM split_tests WHERE workspace_id = ${ws.id}`)[0]!.n as number;
const outboxWinners = async (id: number) =>
  t.deps.sql`SELECT data FROM outbox WHERE workspace_id = ${a.id} AND event = 'split_test.winner_declared' AND (data->>'split_test_id')::bigint = ${id}`;

describe("create, read, list", () => {
  test("creates a running test whose snippet is on the CDN; reads it back; lists it in the pagination envelope", async () => {
    const res = await create(a, { name: "Headline test", variations: pair(0, 1, [30, 70]), goal: "conversion" });
    expect(res.status).toBe(201);
    const st = res.body.split_test;
    expect(st).toMatchObject({
      name: "Headline test",
      goal: "conversion",
      status: "running",
      auto_promote: false,
      declared_winner: null,
      winner_variation_id: null,
      serving_variation_id: null,
      ended_at: null,
    });
    expect(st.variations.map((v: any) => [v.video_id, v.video_code, v.title, v.weight, v.control])).toEqual([
      [videos[0]!.id, videos[0]!.code, "Control", 30, true],
      [videos[1]!.id, videos[1]!.code, "Variation B", 70, false],
    ]);
    expect(st.control_variation_id).toBe(st.variations[0].id);
    expect(st.embed.script_url).toBe(`http://127.0.0.1:8080/cdn/s/${st.code}.js`);
    expect(st.embed.html).toBe(`<div class="frameline-player" data-split-test="${st.code}"></div><script async src="${st.embed.script_url}"></script>`);
    const script = await t.call("GET", st.embed.script_url);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("javascript");
    expect(script.text).toContain(st.code);
    expect(script.text).toContain("/v1/split-test");

    const read = await t.call("GET", `/api/v1/split-tests/${st.id}`, { token: a.token });
    expect(read.status).toBe(200);
    expect(read.body.split_test).toEqual(st);

    const list = await t.call("GET", "/api/v1/split-tests?per_page=1", { token: a.token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ current_page: 1, per_page: 1, from: 1, to: 1 });
    expect(list.body.total).toBeGreaterThanOrEqual(1);
    expect(list.body.data[0].id).toBeGreaterThanOrEqual(st.id);
    for (const key of ["first_page_url", "last_page", "last_page_url", "links", "next_page_url", "path", "prev_page_url"])
      expect(list.body).toHaveProperty(key);
    // End it so its videos are free for the tests below.
    expect((await t.call("POST", `/api/v1/split-tests/${st.id}/end`, { token: a.token, body: { winner_variation_id: st.variations[1].id } })).status).toBe(200);
  });

  test("bad input is 422 in docs/api.md's shape and creates nothing", async () => {
    const before = await testsOf(a);
    const cases: [unknown, string][] = [
      [{ name: "x", variations: pair(0, 1, [50, 40]), goal: "play" }, "variations"],
      [{ name: "x", variations: [{ video_id: videos[0]!.id, weight: 100 }], goal: "play" }, "variations"],
      [
        {
          name: "x",
          variations: videos
            .concat(videos)
            .slice(0, 11)
            .map((v) => ({ video_id: v.id, weight: 9 })),
          goal: "play",
        },
        "variations",
      ],
      [{ name: "x", variations: pair(0, 0), goal: "play" }, "variations"],
      [{ name: "x", variations: pair(0, 1, [0, 100]), goal: "play" }, "variations.0.weight"],
      [{ name: "x", variations: pair(0, 1, [49.5, 50.5]), goal: "play" }, "variations.0.weight"],
      [{ name: "x", variations: pair(0, 1), goal: "revenue" }, "goal"],
      [{ name: "", variations: pair(0, 1), goal: "play" }, "name"],
      [{ name: "a\u0000b", variations: pair(0, 1), goal: "play" }, "name"],
      [{ name: "x".repeat(256), variations: pair(0, 1), goal: "play" }, "name"],
      [{ name: "x", variations: pair(0, 1), goal: "play", auto_promote: "yes" }, "auto_promote"],
      [{ variations: pair(0, 1), goal: "play" }, "name"],
    ];
    for (const [body, field] of cases) {
      const res = await create(a, body);
      expect({ status: res.status, body: JSON.stringify(body).slice(0, 80) }).toEqual({ status: 422, body: JSON.stringify(body).slice(0, 80) });
      expect(typeof res.body.message).toBe("string");
      expect(Object.keys(res.body.errors)).toContain(field);
    }
    expect(await testsOf(a)).toBe(before);
  });

  test("a video of another workspace is 404, and so are another workspace's tests", async () => {
    const before = await testsOf(a);
    const res = await create(a, {
      name: "x",
      variations: [
        { video_id: videos[0]!.id, weight: 50 },
        { video_id: foreign.id, weight: 50 },
      ],
      goal: "play",
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("VIDEO_NOT_FOUND");
    expect(await testsOf(a)).toBe(before);

    const mine = (await create(a, { name: "Private", variations: pair(0, 1), goal: "play" })).body.split_test;
    for (const [method, path, body] of [
      ["GET", `/api/v1/split-tests/${mine.id}`],
      ["GET", `/api/v1/split-tests/${mine.id}/report`],
      ["POST", `/api/v1/split-tests/${mine.id}/pause`],
      ["POST", `/api/v1/split-tests/${mine.id}/resume`],
      ["POST", `/api/v1/split-tests/${mine.id}/end`, { winner_variation_id: mine.variations[0].id }],
      ["GET", "/api/v1/split-tests/999999999"],
      ["GET", "/api/v1/split-tests/abc"],
    ] as [string, string, unknown?][]) {
      const other = await t.call(method, path, { token: b.token, body });
      expect({ path, status: other.status }).toEqual({ path, status: 404 });
    }
    expect((await t.call("GET", "/api/v1/split-tests", { token: b.token })).body.data.map((x: any) => x.id)).not.toContain(mine.id);
    // B's embed cannot ask about A's test either.
    const asked = await t.call("POST", "/v1/split-test", { body: { workspace_code: b.code, split_test: mine.code, session_id: "s".repeat(32) } });
    expect(asked.status).toBe(404);
    expect(asked.body.error).toBe("NOT_FOUND");
    expect((await t.call("POST", `/api/v1/split-tests/${mine.id}/end`, { token: a.token, body: { winner_variation_id: mine.variations[0].id } })).status).toBe(
      200,
    );
  });

  test("a video is in one test at a time; scopes videos:read, videos:write and analytics:read", async () => {
    const first = (await create(a, { name: "One", variations: pair(0, 1), goal: "play" })).body.split_test;
    const taken = await create(a, { name: "Two", variations: pair(2, 1), goal: "play" });
    expect(taken.status).toBe(422);
    expect(taken.body.errors.variations[0]).toContain(`split test ${first.id}`);

    const reader = await a.mint(["videos:read"]);
    expect((await t.call("GET", "/api/v1/split-tests", { token: reader.secret })).status).toBe(200);
    expect((await t.call("GET", `/api/v1/split-tests/${first.id}`, { token: reader.secret })).status).toBe(200);
    const denied = await t.call("POST", "/api/v1/split-tests", { token: reader.secret, body: { name: "x", variations: pair(2, 3), goal: "play" } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.required).toBe("videos:write");
    expect((await t.call("POST", `/api/v1/split-tests/${first.id}/pause`, { token: reader.secret })).status).toBe(403);
    const report = await t.call("GET", `/api/v1/split-tests/${first.id}/report`, { token: reader.secret });
    expect(report.status).toBe(403);
    expect(report.body.error.required).toBe("analytics:read");
    // Ended, its videos are free again.
    await t.call("POST", `/api/v1/split-tests/${first.id}/end`, { token: a.token, body: { winner_variation_id: first.variations[1].id } });
    const again = await create(a, { name: "Two", variations: pair(2, 1), goal: "play" });
    expect(again.status).toBe(201);
    await t.call("POST", `/api/v1/split-tests/${again.body.split_test.id}/end`, {
      token: a.token,
      body: { winner_variation_id: again.body.split_test.variations[0].id },
    });
  });
});

test("the report's window: from the day the test was created to today by default; bad dates and zones are 422", async () => {
  const st = (await create(a, { name: "Window", variations: pair(0, 1), goal: "cta_click" })).body.split_test;
  const today = new Date().toISOString().slice(0, 10);
  const report = await t.call("GET", `/api/v1/split-tests/${st.id}/report`, { token: a.token });
  expect(report.status).toBe(200);
  expect(report.body).toMatchObject({ split_test_id: st.id, goal: "cta_click", from: st.created_at.slice(0, 10), to: today, tz: "UTC", series: [] });
  expect(report.body.variations.map((v: any) => [v.variation_id, v.impressions, v.goal.trials, v.goal.rate])).toEqual(
    st.variations.map((v: any) => [v.id, 0, 0, null]),
  );
  expect(report.body.decision).toMatchObject({ sample_reached: false, leader_variation_id: null, significant: false });
  for (const [query, field] of [
    ["from=2026-13-01", "from"],
    ["to=yesterday", "to"],
    ["from=2026-02-02&to=2026-02-01", "to"],
    ["tz=Mars/Olympus", "tz"],
  ]) {
    const bad = await t.call("GET", `/api/v1/split-tests/${st.id}/report?${query}`, { token: a.token });
    expect({ query, status: bad.status }).toEqual({ query, status: 422 });
    expect(bad.body.errors).toHaveProperty(field!);
  }
  await t.call("POST", `/api/v1/split-tests/${st.id}/end`, { token: a.token, body: { winner_variation_id: st.variations[0].id } });
});

describe("serving", () => {
  test("by weight and sticky per device; paused serves the control; resumed the same variations; ended the winner to everyone", async () => {
    const st = (await create(a, { name: "States", variations: pair(2, 3), goal: "play" })).body.split_test;
    const [control, other] = st.variations;
    const viewers = Array.from({ length: 40 }, newViewer);
    const first = await inParallel(viewers, 8, (v) => served(t, a.code, st.code, v));
    const variations = new Set(first.map((s) => s.variation_id));
    expect(variations).toEqual(new Set([control.id, other.id]));
    for (const s of first) {
      expect(s.in_test).toBe(true);
      const v = st.variations.find((x: any) => x.id === s.variation_id);
      expect(s.video_code).toBe(v.video_code);
      expect(s.script_url).toBe(`http://127.0.0.1:8080/cdn/p/${v.video_code}.js`);
    }
    // The same device, a new session (a reload in another tab): the same variation.
    for (const [i, v] of viewers.slice(0, 10).entries()) {
      expect((await served(t, a.code, st.code, { session: newViewer().session, device: v.device })).variation_id).toBe(first[i]!.variation_id);
    }

    expect((await t.call("POST", `/api/v1/split-tests/${st.id}/pause`, { token: a.token })).body.split_test).toMatchObject({
      status: "paused",
      serving_variation_id: control.id,
    });
    for (const v of viewers.slice(0, 10)) expect(await served(t, a.code, st.code, v)).toMatchObject({ variation_id: control.id, in_test: false });
    // Paused twice is still paused.
    expect((await t.call("POST", `/api/v1/split-tests/${st.id}/pause`, { token: a.token })).status).toBe(200);

    expect((await t.call("POST", `/api/v1/split-tests/${st.id}/resume`, { token: a.token })).body.split_test).toMatchObject({
      status: "running",
      serving_variation_id: null,
    });
    for (const [i, v] of viewers.slice(0, 10).entries())
      expect(await served(t, a.code, st.code, v)).toMatchObject({ variation_id: first[i]!.variation_id, in_test: true });

    const bad = await t.call("POST", `/api/v1/split-tests/${st.id}/end`, { token: a.token, body: { winner_variation_id: 999999999 } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty("winner_variation_id");
    const ended = await t.call("POST", `/api/v1/split-tests/${st.id}/end`, { token: a.token, body: { winner_variation_id: other.id } });
    expect(ended.status).toBe(200);
    expect(ended.body.split_test).toMatchObject({ status: "ended", winner_variation_id: other.id, serving_variation_id: other.id });
    expect(ended.body.split_test.ended_at).toBeString();
    for (const v of viewers.slice(0, 20)) expect(await served(t, a.code, st.code, v)).toMatchObject({ variation_id: other.id, in_test: false });
    for (const path of ["pause", "resume"]) expect((await t.call("POST", `/api/v1/split-tests/${st.id}/${path}`, { token: a.token })).status).toBe(422);
    expect((await t.call("POST", `/api/v1/split-tests/${st.id}/end`, { token: a.token, body: { winner_variation_id: control.id } })).status).toBe(422);
  });

  test("player events, custom events and sales of a served session carry its test and variation", async () => {
    const st = (await create(a, { name: "Stamps", variations: pair(4, 5), goal: "conversion" })).body.split_test;
    const viewer: Viewer = newViewer();
    const s = await served(t, a.code, st.code, viewer);
    expect((await collect(t, a.code, s.video_code, viewer, ["load", "play"])).status).toBe(200);
    // Another video played in the same tab is not the variation: its rows carry nothing.
    expect((await collect(t, a.code, videos[1]!.code, viewer, ["load"])).status).toBe(200);
    const custom = await t.call("POST", "/v1/event", { token: a.token, body: { event: "added_to_cart", session_id: viewer.session } });
    expect(custom.status).toBe(200);

    // Without ids the sale takes the session's variation, whichever of the test's videos it credits.
    const otherVideo = st.variations.find((v: any) => v.id !== s.variation_id).video_code;
    const sale = await t.call("POST", "/api/v1/conversions", {
      token: a.token,
      body: { video_code: otherVideo, session_code: viewer.session, conversion_id: `o-${viewer.session}`, conversion_value: 10 },
    });
    expect(sale.status).toBe(201);
    expect(sale.body.attributed_to_split_test).toBe(true);
    // With ids they are kept as sent.
    const explicit = await t.call("POST", "/api/v1/conversions", {
      token: a.token,
      body: {
        video_code: s.video_code,
        session_code: viewer.session,
        conversion_id: `p-${viewer.session}`,
        split_test_id: "external-7",
        split_test_variation_id: "b",
      },
    });
    expect(explicit.status).toBe(201);
    expect(explicit.body.attributed_to_split_test).toBe(true);
    const one = await t.call("POST", "/api/v1/conversions", { token: a.token, body: { video_code: videos[0]!.code, split_test_id: "7" } });
    expect(one.status).toBe(422);
    expect(one.body.errors).toHaveProperty("split_test_variation_id");
    // A browser-fallback sale traced to the session carries it too (unverified: it counts nowhere).
    await t.call("PUT", `/admin/v1/workspaces/${a.id}/integrations/shopify`, { token: ADMIN_KEY, body: { browser_fallback: true } });
    const fallback = await t.call("POST", "/v1/conversion", {
      body: { workspace_code: a.code, integration: "shopify", order_id: `q-${viewer.session}`, value: 99, session_id: viewer.session },
    });
    expect(fallback.status).toBe(200);
    // A sale of a session that was not served a variation is not attributed.
    const plain = await t.call("POST", "/api/v1/conversions", { token: a.token, body: { video_code: videos[0]!.code, session_code: newViewer().session } });
    expect(plain.body.attributed_to_split_test).toBe(false);

    const ledger = await t.deps.sql`
      SELECT conversion_id, split_test_id, split_test_variation_id FROM conversions WHERE workspace_id = ${a.id} AND session_code = ${viewer.session} ORDER BY conversion_id`;
    expect(ledger.map((r) => [r.conversion_id, r.split_test_id, r.split_test_variation_id])).toEqual([
      [`o-${viewer.session}`, String(st.id), String(s.variation_id)],
      [`p-${viewer.session}`, "external-7", "b"],
      [`q-${viewer.session}`, String(st.id), String(s.variation_id)],
    ]);

    const rows = await (
      await t.deps.ch.query({
        query: `SELECT event_type, video_code, properties['split_test_id'] AS test, properties['split_test_variation_id'] AS variation
                FROM events WHERE workspace_id = {ws:UInt64} AND session_code = {s:String} ORDER BY event_type, video_code, test`,
        query_params: { ws: a.id, s: viewer.session },
        format: "JSONEachRow",
      })
    ).json<{ event_type: string; video_code: string; test: string; variation: string }>();
    const want = [String(st.id), String(s.variation_id)];
    expect(rows.filter((r) => r.video_code === s.video_code && r.event_type !== "conversion").map((r) => [r.event_type, r.test, r.variation])).toEqual([
      ["load", ...want],
      ["play", ...want],
    ]);
    expect(rows.find((r) => r.video_code === videos[1]!.code && r.event_type === "load")).toMatchObject({ test: "", variation: "" });
    expect(rows.find((r) => r.event_type === "custom")).toMatchObject({ test: want[0], variation: want[1] });
    expect(
      rows
        .filter((r) => r.event_type === "conversion")
        .map((r) => [r.test, r.variation])
        .sort(),
    ).toEqual([want, ["external-7", "b"]].sort());

    // The report counts the session in its variation, and the sale it is traced to (credited to another video).
    const report = (await t.call("GET", `/api/v1/split-tests/${st.id}/report`, { token: a.token })).body;
    const mine = report.variations.find((v: any) => v.variation_id === s.variation_id);
    expect(mine).toMatchObject({ impressions: 1, plays: 1, conversions: 2, goal: { trials: 1, successes: 1, rate: 1 } });
    expect(mine.revenue).toEqual([{ currency: null, orders: 2, revenue: 10, rpv: 10 }]);
    await t.call("POST", `/api/v1/split-tests/${st.id}/end`, { token: a.token, body: { winner_variation_id: s.variation_id } });
  });

  test("the control's own embed serves the test while it is not ended, and is its own again after", async () => {
    // The control has media, so it has a published player (the encoder's state, written directly here).
    const ready = { status: "ready", progress: 100, error: null, w: 1280, h: 720 };
    await t.deps.sql`
      UPDATE videos SET landscape_media = ${t.deps.sql.json(ready as never)}, landscape_hls = 'http://127.0.0.1:8080/media/x/index.m3u8' WHERE id = ${videos[2]!.id}`;
    const controlEntry = async () => (await t.call("GET", `/cdn/p/${videos[2]!.code}.js`)).text;
    const st = (await create(a, { name: "Control embed", variations: pair(2, 3), goal: "play" })).body.split_test;
    const during = await controlEntry();
    expect(during).toContain(st.code);
    expect(during).toContain("/v1/split-test");
    // A deploy of the control while the test runs keeps serving the test.
    expect(
      (await t.call("POST", `/api/v1/videos/${videos[2]!.id}/deploy`, { token: a.token, body: { style_options: { main_color: "#123456" } } })).status,
    ).toBe(200);
    expect(await controlEntry()).toContain(st.code);
    await t.call("POST", `/api/v1/split-tests/${st.id}/end`, { token: a.token, body: { winner_variation_id: st.variations[1].id } });
    const after = await controlEntry();
    expect(after).not.toContain(st.code);
    expect(after).not.toContain("/v1/split-test");
    expect(after).toContain("#123456");
  });
});

describe("the winner rule on a play goal, with auto_promote", () => {
  test("declared once when the play rates differ significantly; then the winner is served to everyone", async () => {
    const fresh = [await t.createVideo(a, { title: "Thumbnail A" }), await t.createVideo(a, { title: "Thumbnail B" })];
    const variations = fresh.map((v) => ({ video_id: v.id, weight: 50 }));
    const st = (await create(a, { name: "Thumbnail", variations, goal: "play", auto_promote: true })).body.split_test;
    const [control, other] = st.variations;
    // The control's visitors press play 20 % of the time, the other variation's 60 %.
    const viewers = Array.from({ length: 360 }, newViewer);
    let n = 0;
    const servedTo = await inParallel(viewers, 16, async (v) => {
      const s = await served(t, a.code, st.code, v);
      const plays = n++ % 5 < (s.variation_id === control.id ? 1 : 3);
      await collect(t, a.code, s.video_code, v, plays ? ["load", "play"] : ["load"]);
      return s;
    });
    expect(new Set(servedTo.map((s) => s.variation_id)).size).toBe(2);
    expect(await evaluateSplitTests(t.deps)).toBeGreaterThanOrEqual(1);
    expect(await outboxWinners(st.id)).toHaveLength(1);
    expect((await outboxWinners(st.id))[0]!.data).toMatchObject({
      split_test_id: st.id,
      goal: "play",
      winner_variation_id: other.id,
      video: { id: other.video_id, code: other.video_code },
      auto_promoted: true,
    });
    const read = (await t.call("GET", `/api/v1/split-tests/${st.id}`, { token: a.token })).body.split_test;
    expect(read).toMatchObject({ status: "running", declared_winner: { variation_id: other.id }, serving_variation_id: other.id });
    // Promoted: everyone gets the winner, outside the test.
    for (const v of viewers.slice(0, 20)) expect(await served(t, a.code, st.code, v)).toMatchObject({ variation_id: other.id, in_test: false });
    // Checked again: still one declaration.
    await evaluateSplitTests(t.deps);
    expect(await outboxWinners(st.id)).toHaveLength(1);
    const report = (await t.call("GET", `/api/v1/split-tests/${st.id}/report`, { token: a.token })).body;
    expect(report.decision).toMatchObject({ significant: true, leader_variation_id: other.id, declared_variation_id: other.id, sample_reached: true });
    await t.call("POST", `/api/v1/split-tests/${st.id}/end`, { token: a.token, body: { winner_variation_id: other.id } });
  }, 60_000);
});

test("unknown fields and a missing test on the events host", async () => {
  const unknown = await t.call("POST", "/v1/split-test", {
    body: { workspace_code: a.code, split_test: crypto.randomUUID(), session_id: "x".repeat(32), extra: 1 },
  });
  expect(unknown.status).toBe(400);
  expect(unknown.body.error).toBe("INVALID_PAYLOAD");
  const missing = await t.call("POST", "/v1/split-test", { body: { workspace_code: a.code, split_test: crypto.randomUUID(), session_id: "x".repeat(32) } });
  expect(missing.status).toBe(404);
  // Pages on other origins read the answer, errors included.
  expect(missing.headers.get("access-control-allow-origin")).toBe("*");
  const preflight = await t.call("OPTIONS", "/v1/split-test", { headers: { Origin: "https://shop.example", "Access-Control-Request-Method": "POST" } });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
});
