import { beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { ADMIN_KEY, testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { loadConfig } from "../../server/config.ts";

let t: TestApp;
let ws: TestWorkspace;
let video: { id: number; code: string };
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const md5 = (s: string) => createHash("md5").update(s).digest("hex");
const ip = () => `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

const base = loadConfig({});
async function chRows(where: string, params: Record<string, unknown>): Promise<any[]> {
  const result = await t.deps.ch.query({ query: `SELECT * FROM events WHERE ${where} ORDER BY created_at`, query_params: params, format: "JSONEachRow" });
  // UInt64 comes back as a number from chDB and as a string from a ClickHouse server.
  return (await result.json<any>()).map((r: any) => ({
    ...r,
    workspace_id: Number(r.workspace_id),
    video_id: Number(r.video_id),
    viewer_id: Number(r.viewer_id),
  }));
}
const send = (body: unknown, opts: { token?: string; ip?: string } = {}) =>
  t.call("POST", "/v1/event", { token: opts.token ?? ws.token, body, headers: { "X-Forwarded-For": opts.ip ?? ip() } });
const collect = (body: Record<string, unknown>, w = ws, v = video) =>
  t.call("POST", "/v1/collect", { body: { workspace_code: w.code, video_code: v.code, ...body }, headers: { "X-Forwarded-For": ip() } });

const newVideo = (w: TestWorkspace) => t.createVideo(w, { title: "Clip" });

beforeAll(async () => {
  t = await testApp({ config: { trustProxy: true } });
  ws = await t.workspace();
  video = await newVideo(ws);
}, 120_000);

describe("POST /v1/event", () => {
  test("an unattributed event is 202, recorded without session identity, and the exact body", async () => {
    const res = await send({ event: "  Signed Up! ", session_id: "nobody-" + crypto.randomUUID(), properties: { plan: "pro", seats: 3 }, value: 12.5 });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ ok: true, event: "signedup", event_id: null, attributed: false, matched_by: null });
    const rows = await chRows("workspace_id = {w:UInt64} AND event = 'signedup'", { w: ws.id });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      event_type: "custom",
      session_code: "",
      device_id: "",
      value: 12.5,
      properties: { plan: "pro", seats: "3" },
      viewer_id: 0,
    });
  });

  test("resolution order: session_id, device_id, profile_id, identity; attributed is 200", async () => {
    const session = "s-" + crypto.randomUUID();
    const device = "d-" + crypto.randomUUID();
    expect((await collect({ session_id: session, device_id: device, profile_id: "p-" + session, events: [{ type: "play", video_time: 0 }] })).status).toBe(200);

    const bySession = await send({ event: "checkout", session_id: session, device_id: "unknown-device" });
    expect(bySession.status).toBe(200);
    expect(bySession.body).toMatchObject({ attributed: true, matched_by: "session_id" });

    const byDevice = await send({ event: "checkout", session_id: "unknown-s", device_id: device });
    expect(byDevice.body).toMatchObject({ attributed: true, matched_by: "device_id" });

    const byProfile = await send({ event: "checkout", profile_id: "p-" + session });
    expect(byProfile.body).toMatchObject({ attributed: true, matched_by: "profile_id" });

    // An identity on an attributed event ties the viewer; afterwards the identity alone resolves.
    const email = `Buyer-${session}@Example.com `;
    expect((await send({ event: "identify", session_id: session, email })).body.matched_by).toBe("session_id");
    const byHash = await send({ event: "checkout", email_md5: md5(email.trim().toLowerCase()) });
    expect(byHash.status).toBe(200);
    expect(byHash.body).toMatchObject({ attributed: true, matched_by: "identity" });
    const byRaw = await send({ event: "checkout", email: email.toUpperCase() });
    expect(byRaw.body.matched_by).toBe("identity");

    const rows = await chRows("workspace_id = {w:UInt64} AND event = 'checkout' AND session_code = {s:String}", { w: ws.id, s: session });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ video_id: video.id, video_code: video.code });
    expect(Number(rows[0].viewer_id)).toBeGreaterThan(0);
  });

  test("raw email and phone are hashed, never stored raw, never as properties", async () => {
    const session = "s-" + crypto.randomUUID();
    await collect({ session_id: session, events: [{ type: "pause", video_time: 3 }] });
    const res = await send({
      event: "contact",
      session_id: session,
      email: "raw@example.com",
      phone: "+44 20 7946 0958",
      external_id: "crm-1",
      properties: { email: "sneaky@example.com", ok: "yes" },
    });
    expect(res.status).toBe(200);
    const [row] = await chRows("workspace_id = {w:UInt64} AND event = 'contact'", { w: ws.id });
    expect(row.properties).toEqual({ ok: "yes" });
    expect(JSON.stringify(row)).not.toContain("example.com");
    const keys = await t.deps.sql`SELECT kind, key FROM viewer_keys WHERE workspace_id = ${ws.id} AND kind LIKE 'phone%'`;
    expect(keys.map((k) => k.key).sort()).toEqual([md5("+442079460958"), sha256("+442079460958")].sort());
    const byPhone = await send({ event: "contact", phone: "0044 20 7946 0958" });
    expect(byPhone.body.matched_by).toBe("identity");
    // No + and no leading 00: dropped, so it cannot resolve anything.
    const dropped = await send({ event: "contact", phone: "442079460958" });
    expect(dropped.status).toBe(202);
    const leads = await t.deps.sql`SELECT count(*)::int AS n FROM leads WHERE workspace_id = ${ws.id} AND email = 'raw@example.com'`;
    expect(leads[0]!.n).toBe(0); // no video_code: no lead
  });

  test("raw email with a video_code upserts a lead and enqueues lead.captured once", async () => {
    const email = `lead-${crypto.randomUUID()}@example.com`;
    for (let i = 0; i < 2; i++) expect((await send({ event: "optin", email, video_code: video.code })).status).toBe(202);
    const leads = await t.deps.sql`SELECT email, video_code FROM leads WHERE workspace_id = ${ws.id} AND email = ${email}`;
    expect(leads).toEqual([{ email, video_code: video.code }] as never);
    const outbox = await t.deps
      .sql`SELECT data FROM outbox WHERE workspace_id = ${ws.id} AND event = 'lead.captured' AND data->'identity'->>'email' = ${email}`;
    expect(outbox).toHaveLength(1);
    // The shape of docs/api.md's new_lead automation sample.
    expect(outbox[0]!.data).toMatchObject({ video_code: video.code, identity: { email, first_name: null }, url: null, video_id: video.id });
    expect(Date.parse(outbox[0]!.data.captured_at)).toBeGreaterThan(0);
  });

  test("event_id: a repeat returns the same answer and adds no row", async () => {
    const eventId = crypto.randomUUID();
    const first = await send({ event: "purchase_intent", event_id: eventId, session_id: "x" });
    const again = await send({ event: "purchase_intent", event_id: eventId, session_id: "x" });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(first.body.event_id).toBe(eventId);
    expect(await chRows("workspace_id = {w:UInt64} AND event_id = {e:String}", { w: ws.id, e: eventId })).toHaveLength(1);
    // Without event_id a retry counts twice (at-least-once).
    await send({ event: "no_id" });
    await send({ event: "no_id" });
    expect(await chRows("workspace_id = {w:UInt64} AND event = 'no_id'", { w: ws.id })).toHaveLength(2);
    // Another workspace may use the same event_id.
    const other = await t.workspace(["events:write"]);
    expect((await send({ event: "purchase_intent", event_id: eventId }, { token: other.token })).status).toBe(202);
    expect(await chRows("workspace_id = {w:UInt64} AND event_id = {e:String}", { w: other.id, e: eventId })).toHaveLength(1);
  });

  test("event_id dedup holds 24 hours, then the id records again", async () => {
    let now = Date.now();
    const timed = await testApp({ config: { trustProxy: true }, clock: { now: () => now } });
    const eventId = crypto.randomUUID();
    const call = () => timed.call("POST", "/v1/event", { token: ws.token, body: { event: "daily", event_id: eventId }, headers: { "X-Forwarded-For": ip() } });
    await call();
    now += 23 * 3600_000;
    await call();
    expect(await chRows("workspace_id = {w:UInt64} AND event_id = {e:String}", { w: ws.id, e: eventId })).toHaveLength(1);
    now += 2 * 3600_000;
    await call();
    expect(await chRows("workspace_id = {w:UInt64} AND event_id = {e:String}", { w: ws.id, e: eventId })).toHaveLength(2);
  });

  test("event_id claimed by a writer that died: a repeat is refused while it may still be writing, then records the event once", async () => {
    let now = Date.now();
    const timed = await testApp({ config: { trustProxy: true }, clock: { now: () => now } });
    const eventId = crypto.randomUUID();
    // What a process killed between its claim and its INSERT leaves behind: a claim and no row.
    await t.deps
      .sql`INSERT INTO event_dedup (workspace_id, event_id, event, attributed, matched_by, created_at) VALUES (${ws.id}, ${eventId}, 'orphan', false, NULL, ${new Date(now)})`;
    const call = () => timed.call("POST", "/v1/event", { token: ws.token, body: { event: "orphan", event_id: eventId }, headers: { "X-Forwarded-For": ip() } });
    const early = await call();
    expect(early.status).toBe(500);
    expect(early.body).toMatchObject({ error: "WRITE_FAILED" });
    expect(await chRows("workspace_id = {w:UInt64} AND event_id = {e:String}", { w: ws.id, e: eventId })).toHaveLength(0);
    now += 31_000;
    const late = await call();
    expect(late.status).toBe(202);
    expect(late.body).toEqual({ ok: true, event: "orphan", event_id: eventId, attributed: false, matched_by: null });
    expect(await chRows("workspace_id = {w:UInt64} AND event_id = {e:String}", { w: ws.id, e: eventId })).toHaveLength(1);
    // From then on it is an ordinary repeat: the same answer, no new row, whenever it comes.
    now += 60_000;
    expect((await call()).body).toEqual(late.body);
    const fresh = await testApp({ config: { trustProxy: true }, clock: { now: () => now } });
    expect(
      (await fresh.call("POST", "/v1/event", { token: ws.token, body: { event: "orphan", event_id: eventId }, headers: { "X-Forwarded-For": ip() } })).body,
    ).toEqual(late.body);
    expect(await chRows("workspace_id = {w:UInt64} AND event_id = {e:String}", { w: ws.id, e: eventId })).toHaveLength(1);
  });

  test("event_id claimed and marked written by the previous version: a repeat gets the first answer and adds no row", async () => {
    const eventId = crypto.randomUUID();
    // That version claimed a group of events at the time of its first, so this claim's time need not be its row's.
    await t.deps
      .sql`INSERT INTO event_dedup (workspace_id, event_id, event, attributed, matched_by, created_at, written) VALUES (${ws.id}, ${eventId}, 'upgraded', false, NULL, ${new Date(Date.now() - 60_000)}, true)`;
    const repeat = await t.call("POST", "/v1/event", { token: ws.token, body: { event: "upgraded", event_id: eventId }, headers: { "X-Forwarded-For": ip() } });
    expect(repeat.status).toBe(202);
    expect(repeat.body).toEqual({ ok: true, event: "upgraded", event_id: eventId, attributed: false, matched_by: null });
    expect(await chRows("workspace_id = {w:UInt64} AND event_id = {e:String}", { w: ws.id, e: eventId })).toHaveLength(0);
  });

  test("bad payloads: 400 INVALID_PAYLOAD / INVALID_EVENT_NAME and nothing written", async () => {
    const w = await t.workspace(["events:write"]);
    const cases: [unknown, string][] = [
      [{ event: "x", unknown_field: 1 }, "INVALID_PAYLOAD"],
      [{ event: "!!!" }, "INVALID_EVENT_NAME"],
      [{ event: "x", value: 1_000_000_001 }, "INVALID_PAYLOAD"],
      [{ event: "x", value: -1_000_000_001 }, "INVALID_PAYLOAD"],
      [{ event: "x", properties: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, "v"])) }, "INVALID_PAYLOAD"],
      [{ event: "x", properties: { ["k".repeat(41)]: "v" } }, "INVALID_PAYLOAD"],
      [{ event: "x", properties: { k: "v".repeat(101) } }, "INVALID_PAYLOAD"],
      [{ event: "x", email_sha256: "nothex" }, "INVALID_PAYLOAD"],
      [{ session_id: "s" }, "INVALID_PAYLOAD"],
      ["not json", "INVALID_PAYLOAD"],
    ];
    for (const [body, code] of cases) {
      const res = await send(body, { token: w.token });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: code });
      expect(res.body.message).toBeString();
    }
    // At the limits exactly: accepted.
    const edge = await send(
      {
        event: "e".repeat(80),
        value: 1_000_000_000,
        properties: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`${i}`.padEnd(40, "k"), "v".repeat(100)])),
      },
      { token: w.token },
    );
    expect(edge.status).toBe(202);
    expect(edge.body.event).toBe("e".repeat(64));
    expect(await chRows("workspace_id = {w:UInt64}", { w: w.id })).toHaveLength(1);
  });

  test("auth: none 401, wrong 401, legacy key 403, missing scope 403, all in the events shape", async () => {
    const noToken = await t.call("POST", "/v1/event", { body: { event: "x" } });
    expect(noToken.status).toBe(401);
    expect(noToken.body).toMatchObject({ error: "AUTH_REQUIRED" });
    expect((await send({ event: "x" }, { token: "flt_wrong" })).body).toMatchObject({ error: "INVALID_TOKEN" });
    const legacy = await send({ event: "x" }, { token: ws.legacyKey });
    expect(legacy.status).toBe(403);
    expect(legacy.body).toMatchObject({ error: "INSUFFICIENT_SCOPE" });
    const { secret } = await ws.mint(["videos:read"]);
    const scoped = await send({ event: "x" }, { token: secret });
    expect(scoped.status).toBe(403);
    expect(scoped.body).toMatchObject({ error: "INSUFFICIENT_SCOPE", required: "events:write" });
  });

  test("100 distinct names per workspace, then 422 TOO_MANY_EVENT_NAMES with the count; known names still work", async () => {
    const w = await t.workspace(["events:write"]);
    const fast = await testApp({ config: { trustProxy: true, eventLimits: { ...base.eventLimits, perWorkspacePerMinute: 10_000, perIpPerMinute: 10_000 } } });
    for (let i = 0; i < 100; i++) {
      const res = await fast.call("POST", "/v1/event", { token: w.token, body: { event: `name_${i}` } });
      expect(res.status).toBe(202);
    }
    const over = await fast.call("POST", "/v1/event", { token: w.token, body: { event: "name_100" } });
    expect(over.status).toBe(422);
    expect(over.body).toMatchObject({ error: "TOO_MANY_EVENT_NAMES", in_use: 100 });
    expect(over.body.message).toContain("100");
    expect((await fast.call("POST", "/v1/event", { token: w.token, body: { event: "NAME_5" } })).status).toBe(202);
    // The cap is per workspace.
    expect((await send({ event: "name_100" })).status).toBe(202);
    const [{ n }] = (await t.deps.ch
      .query({
        query: "SELECT count() AS n FROM events WHERE workspace_id = {w:UInt64} AND event = 'name_100'",
        query_params: { w: w.id },
        format: "JSONEachRow",
      })
      .then((r) => r.json())) as any;
    expect(Number(n)).toBe(0);
  }, 60_000);

  test("600/min per workspace and 120/min per IP: 429 RATE_LIMITED", async () => {
    const limited = await testApp({ config: { trustProxy: true, eventLimits: { ...base.eventLimits, perWorkspacePerMinute: 3, perIpPerMinute: 2 } } });
    const w = await t.workspace(["events:write"]);
    const one = ip();
    const call = (addr: string) => limited.call("POST", "/v1/event", { token: w.token, body: { event: "rl" }, headers: { "X-Forwarded-For": addr } });
    const accepted = await call(one);
    expect(accepted.status).toBe(202);
    // Two limits apply to each call: accepted answers carry no RateLimit header; the refusal names its rule.
    expect(accepted.headers.get("ratelimit")).toBeNull();
    expect((await call(one)).status).toBe(202);
    const perIp = await call(one);
    expect(perIp.status).toBe(429);
    expect(perIp.body).toMatchObject({ error: "RATE_LIMITED" });
    expect(perIp.headers.get("retry-after")).toBeTruthy();
    expect(perIp.headers.get("ratelimit")).toStartWith(`"events_ip";r=0;`);
    expect((await call(ip())).status).toBe(429); // the workspace's 3 are used (2 accepted + the IP-limited one counted)
    expect(base.eventLimits).toEqual({ perWorkspacePerMinute: 600, perIpPerMinute: 120, browserConversionPerIpPerMinute: 60 });
  });

  test("a custom event never becomes a conversion", async () => {
    await send({ event: "purchase", value: 99 });
    const rows = await chRows("workspace_id = {w:UInt64} AND event_type = 'conversion'", { w: ws.id });
    expect(rows).toHaveLength(0);
    const ledger = await t.deps.sql`SELECT count(*)::int AS n FROM conversions WHERE workspace_id = ${ws.id}`;
    expect(ledger[0]!.n).toBe(0);
  });
});

describe("POST /v1/collect", () => {
  test("a batch sent again with the number its session already took is written once, whatever the order batches arrive in", async () => {
    const session = "s-" + crypto.randomUUID();
    const batch = (seq: number) =>
      collect({ session_id: session, device_id: `dev-${session}`, seq, events: [{ type: "heartbeat", ranges: [{ from_s: seq, to_s: seq + 1 }] }] });
    expect((await batch(1)).body).toEqual({ ok: true, accepted: 1 });
    // Its answer was lost: the player sends it again; a beacon at unload sends it a third time.
    expect((await batch(1)).body).toEqual({ ok: true, accepted: 0, duplicate: true });
    expect((await batch(1)).body).toEqual({ ok: true, accepted: 0, duplicate: true });
    // A beacon sends the queue at once: 4 may arrive before 2 and 3, each still counts once.
    expect((await batch(4)).body.accepted).toBe(1);
    expect((await batch(3)).body.accepted).toBe(1);
    expect((await batch(2)).body.accepted).toBe(1);
    expect((await batch(3)).body.duplicate).toBe(true);
    // Far beyond the window everything below is taken as new; a batch far behind is written (a rare duplicate, never a loss).
    expect((await batch(200)).body.accepted).toBe(1);
    expect((await batch(5)).body.accepted).toBe(1);
    const rows = await chRows("workspace_id = {w:UInt64} AND session_code = {s:String}", { w: ws.id, s: session });
    expect(rows.map((r) => r.video_time).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 200]);
  });

  test("a batch without a number is written every time it is sent (older players)", async () => {
    const session = "s-" + crypto.randomUUID();
    const body = { session_id: session, events: [{ type: "pause", video_time: 3 }] };
    await collect(body);
    await collect(body);
    expect(await chRows("workspace_id = {w:UInt64} AND session_code = {s:String}", { w: ws.id, s: session })).toHaveLength(2);
  });

  test("writes one row per player event (one per watched range), makes the session known, and fans out webhooks", async () => {
    const session = "s-" + crypto.randomUUID();
    const res = await collect({
      session_id: session,
      device_id: "dev-" + session,
      events: [
        { type: "startup", ms: 420 },
        { type: "play", video_time: 0 },
        { type: "heartbeat", ranges: [{ from_s: 0, to_s: 10 }] },
        { type: "watched", t: Date.now() - 1000, video_time: 35, from_s: 30, to_s: 35 },
        { type: "seek", from: 10, to: 30, video_time: 30 },
        { type: "milestone", percent: 25, video_time: 35 },
        { type: "cta_click", video_time: 36, card_index: 0, url: "https://shop.example/" + "x".repeat(200) },
        { type: "rebuffer", ms: 800 },
        { type: "quiz_answered", properties: { q: "1", a: "b" } },
        { type: "lead_form_submitted", email: `form-${session}@example.com` },
        { type: "lesson_completed" },
        { type: "playlist_ended" },
        { type: "ended", video_time: 60 },
        { type: "error", message: "MEDIA_ERR", fatal: false },
        { type: "pause", video_time: 60 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, accepted: 15 });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const rows = await chRows("workspace_id = {w:UInt64} AND session_code = {s:String}", { w: ws.id, s: session });
    expect(rows).toHaveLength(15);
    const hb = rows.filter((r) => r.event_type === "watched").map((r) => [r.video_time, r.watch_seconds]);
    expect(hb.sort()).toEqual([
      [0, 10],
      [30, 5],
    ]);
    expect(rows.find((r) => r.event_type === "startup").value).toBe(420);
    expect(rows.find((r) => r.event_type === "milestone").properties.percent).toBe("25");
    expect(rows.find((r) => r.event_type === "seek")).toMatchObject({ video_time: 30, properties: { from_s: "10" } });
    expect(rows.find((r) => r.event_type === "cta_click").properties).toMatchObject({
      card_index: "0",
      url: ("https://shop.example/" + "x".repeat(200)).slice(0, 100),
    });
    expect(rows.find((r) => r.event_type === "error").properties).toEqual({ message: "MEDIA_ERR", fatal: "false" });
    expect(JSON.stringify(rows)).not.toContain("example.com");

    const events = (await t.deps.sql`SELECT event, data FROM outbox WHERE workspace_id = ${ws.id} AND data->>'session_id' = ${session} ORDER BY id`).map(
      (r) => r.event,
    );
    expect(events).toEqual([
      "video.viewed",
      "play",
      "play.milestone",
      "cta.clicked",
      "quiz.answered",
      "lead_form.submitted",
      "lesson.completed",
      "playlist.ended",
      "ended",
    ]);
    const milestone = await t.deps.sql`SELECT data FROM outbox WHERE workspace_id = ${ws.id} AND event = 'play.milestone' AND data->>'session_id' = ${session}`;
    expect(milestone[0]!.data.percent).toBe(25);
    const lead = await t.deps
      .sql`SELECT count(*)::int AS n FROM outbox WHERE workspace_id = ${ws.id} AND event = 'lead.captured' AND data->'identity'->>'email' = ${`form-${session}@example.com`}`;
    expect(lead[0]!.n).toBe(1);

    // A second play of the same session is `play` only, not another `video.viewed`.
    await collect({ session_id: session, events: [{ type: "play", video_time: 60 }] });
    const viewed = await t.deps
      .sql`SELECT count(*)::int AS n FROM outbox WHERE workspace_id = ${ws.id} AND event = 'video.viewed' AND data->>'session_id' = ${session}`;
    expect(viewed[0]!.n).toBe(1);

    // A milestone sent again (a reload, a retried beacon) is recorded but announced once per session and percent.
    await collect({
      session_id: session,
      events: [
        { type: "milestone", percent: 25, video_time: 35 },
        { type: "milestone", percent: 50, video_time: 60 },
        { type: "milestone", percent: 50, video_time: 61 },
      ],
    });
    const announced = await t.deps
      .sql`SELECT data FROM outbox WHERE workspace_id = ${ws.id} AND event = 'play.milestone' AND data->>'session_id' = ${session} ORDER BY id`;
    expect(announced.map((r) => r.data.percent)).toEqual([25, 50]);
    expect(await chRows("workspace_id = {w:UInt64} AND session_code = {s:String} AND event_type = 'milestone'", { w: ws.id, s: session })).toHaveLength(4);
    // Another session announces its own.
    const other = "s-" + crypto.randomUUID();
    await collect({ session_id: other, events: [{ type: "milestone", percent: 25, video_time: 35 }] });
    expect(
      (
        await t.deps.sql`SELECT count(*)::int AS n FROM outbox WHERE workspace_id = ${ws.id} AND event = 'play.milestone' AND data->>'session_id' = ${other}`
      )[0]!.n,
    ).toBe(1);
  });

  test("unknown workspace or another workspace's video: 404, nothing written; bad batches 400", async () => {
    const other = await t.workspace();
    const theirs = await newVideo(other);
    const session = "s-" + crypto.randomUUID();
    const cross = await collect({ session_id: session, events: [{ type: "play" }] }, ws, theirs);
    expect(cross.status).toBe(404);
    expect(cross.body).toMatchObject({ error: "VIDEO_NOT_FOUND" });
    const unknownWs = await t.call("POST", "/v1/collect", {
      body: { workspace_code: "nope", video_code: video.code, session_id: session, events: [{ type: "play" }] },
    });
    expect(unknownWs.status).toBe(404);
    for (const events of [[], [{ type: "warp" }], [{ type: "milestone", percent: 33 }]]) {
      const bad = await collect({ session_id: session, events });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe("INVALID_PAYLOAD");
    }
    expect((await collect({ session_id: session, events: [{ type: "play" }], extra: 1 })).status).toBe(400);
    expect(await chRows("session_code = {s:String}", { s: session })).toHaveLength(0);
    // B's session is not A's viewer.
    await collect({ session_id: session, events: [{ type: "play" }] }, other, theirs);
    expect((await send({ event: "x", session_id: session })).status).toBe(202);
  });

  test("answers a CORS preflight and accepts text/plain (sendBeacon)", async () => {
    const pre = await t.call("OPTIONS", "/v1/collect", { headers: { Origin: "https://shop.example", "Access-Control-Request-Method": "POST" } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
    const body = JSON.stringify({ workspace_code: ws.code, video_code: video.code, session_id: "beacon-" + crypto.randomUUID(), events: [{ type: "pause" }] });
    const res = await t.call("POST", "/v1/collect", { headers: { "Content-Type": "text/plain;charset=UTF-8" }, raw: body });
    expect(res.status).toBe(200);
  });
});

describe("POST /v1/track", () => {
  const track = (body: Record<string, unknown>, w = ws) =>
    t.call("POST", "/v1/track", { body: { workspace_code: w.code, ...body }, headers: { "X-Forwarded-For": ip() } });

  test("only names declared as custom metrics; undeclared is 422 EVENT_NOT_DECLARED", async () => {
    const undeclared = await track({ event: "Newsletter" });
    expect(undeclared.status).toBe(422);
    expect(undeclared.body).toMatchObject({ error: "EVENT_NOT_DECLARED", event: "newsletter" });
    expect(undeclared.headers.get("access-control-allow-origin")).toBe("*");
    expect((await t.call("POST", `/admin/v1/workspaces/${ws.id}/custom-metrics`, { token: ADMIN_KEY, body: { name: "Newsletter" } })).status).toBe(201);
    const session = "s-" + crypto.randomUUID();
    await collect({ session_id: session, events: [{ type: "play" }] });
    const ok = await track({ event: "newsletter", session_id: session, value: 1, email_sha256: sha256("t@example.com"), properties: { list: "weekly" } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ ok: true, event: "newsletter", event_id: null, attributed: true, matched_by: "session_id" });
    const rows = await chRows("workspace_id = {w:UInt64} AND event = 'newsletter'", { w: ws.id });
    expect(rows).toHaveLength(1);
    expect(rows[0].properties).toEqual({ list: "weekly", $source: "browser" });
    // Raw contact data is hashed in the page: the browser path refuses it as an unknown field.
    expect((await track({ event: "newsletter", email: "raw@example.com" })).status).toBe(400);
    // Declared in A does not declare in B; an unknown workspace is 404.
    const other = await t.workspace();
    expect((await track({ event: "newsletter" }, other)).status).toBe(422);
    expect((await t.call("POST", "/v1/track", { body: { workspace_code: crypto.randomUUID(), event: "newsletter" } })).status).toBe(404);
  });
});

describe("GET /admin/v1/ingest/counters", () => {
  test("counts accepted, deduplicated and rejected by reason per minute; needs the admin key", async () => {
    const w = await t.workspace(["events:write"]);
    const eventId = crypto.randomUUID();
    await send({ event: "counted", event_id: eventId }, { token: w.token });
    await send({ event: "counted", event_id: eventId }, { token: w.token });
    await send({ event: "!!!" }, { token: w.token });
    await send({ event: "x", nope: 1 }, { token: w.token });
    // Refusals before any handler runs count too: no token, a body that is not JSON.
    expect((await t.call("POST", "/v1/event", { body: { event: "x" } })).status).toBe(401);
    const unparsable = await t.call("POST", "/v1/collect", { headers: { "Content-Type": "text/plain" }, raw: "{not json" });
    expect(unparsable.status).toBe(400);
    expect((await t.call("GET", "/admin/v1/ingest/counters")).status).toBe(401);
    expect((await t.call("GET", "/admin/v1/ingest/counters", { token: "wrong" })).status).toBe(401);
    const res = await t.call("GET", "/admin/v1/ingest/counters", { token: ADMIN_KEY });
    expect(res.status).toBe(200);
    const of = (outcome: string, reason = "") =>
      res.body.counters
        .filter((c: any) => c.path === "/v1/event" && c.outcome === outcome && c.reason === reason)
        .reduce((n: number, c: any) => n + c.count, 0);
    expect(of("accepted")).toBeGreaterThan(0);
    expect(of("deduplicated")).toBeGreaterThanOrEqual(1);
    expect(of("rejected", "INVALID_EVENT_NAME")).toBeGreaterThanOrEqual(1);
    expect(of("rejected", "INVALID_PAYLOAD")).toBeGreaterThanOrEqual(1);
    expect(of("rejected", "AUTH_REQUIRED")).toBeGreaterThanOrEqual(1);
    expect(res.body.counters.some((c: any) => c.path === "/v1/collect" && c.outcome === "rejected" && c.reason === "INVALID_PAYLOAD")).toBe(true);
    expect(res.body.counters[0].minute).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/);
  });
});
