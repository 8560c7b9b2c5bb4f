/**
 * The server half of the sales player: the typed option groups (422 beside the
 * field), the operator route that sets the five groups the application API
 * drops, the live timed events in GET /embed and GET /config, and what a lead
 * form's answer does on /v1/collect (lead, identity, webhooks, lead status).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { ADMIN_KEY, appAndWorkspace, invalidFields, type TestApp, type TestWorkspace, UNLIMITED } from "../helpers/app.ts";

let t: TestApp;
let ws: TestWorkspace;
beforeAll(async () => ({ t, ws } = await appAndWorkspace({ config: { ...UNLIMITED, trustProxy: true }, fixturePlayer: true })), 120_000);

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const deploy = (id: number, body: unknown, token = ws.token) => t.call("POST", `/api/v1/videos/${id}/deploy`, { token, body });
const operator = (kind: "draft" | "deploy", id: number, body: unknown, workspace = ws.id, token = ADMIN_KEY) =>
  t.call("POST", `/admin/v1/workspaces/${workspace}/videos/${id}/${kind}`, { token, body });
const settingsOf = async (id: number) => (await t.call("GET", `/api/v1/videos/${id}/settings`, { token: ws.token })).body.settings;

describe("typed option groups", () => {
  test("an invalid CSS selector, a non-web link, a lead form without email and a bad date are 422 beside the field; nothing changes", async () => {
    const v = await t.createVideo(ws);
    const before = await settingsOf(v.id);
    const res = await deploy(v.id, {
      timed_events_options: { events: [{ time_s: 3, selector: "#buy" }, { time_s: 5, selector: "div >" }, { time_s: -1 }] },
      end_screen_options: { enabled: true, mode: "text", text: "Thanks", button_url: "javascript:alert(1)" },
      lead_form_options: { enabled: true, fields: ["first_name"] },
      countdown_options: { enabled: true, ends_at: "next friday" },
      share_options: { networks: ["myspace"] },
    });
    expect(invalidFields(res)).toEqual([
      "countdown_options.ends_at",
      "end_screen_options.button_url",
      "lead_form_options.fields",
      "timed_events_options.events.1.selector",
      "timed_events_options.events.2.time_s",
    ]);
    expect(res.body.errors["timed_events_options.events.1.selector"][0]).toContain("valid CSS selector");
    expect(await settingsOf(v.id)).toEqual(before);
  });

  test("fields that need another: pitch time without time_s, a redirect without url (operator route)", async () => {
    const v = await t.createVideo(ws);
    const res = await operator("deploy", v.id, {
      pitch_time_options: { enabled: true },
      actions_options: { enabled: true, actions: [{ trigger: "end", type: "redirect" }] },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      "pitch_time_options.time_s": ["The pitch_time_options.time_s field is required when pitch time is enabled."],
      "actions_options.actions.0.url": ["The actions_options.actions.0.url field is required when the action is redirect."],
    });
  });

  test("user events must name declared custom metrics", async () => {
    const v = await t.createVideo(ws);
    const body = { user_events_options: { enabled: true, events: [{ time_s: 2, name: "Watched Pitch" }] } };
    const refused = await deploy(v.id, body);
    expect(refused.status).toBe(422);
    expect(refused.body.errors["user_events_options.events.0.name"][0]).toContain('"watchedpitch" is not');
    expect((await t.call("POST", `/admin/v1/workspaces/${ws.id}/custom-metrics`, { token: ADMIN_KEY, body: { name: "watchedpitch" } })).status).toBe(201);
    expect((await deploy(v.id, body)).status).toBe(200);
  });
});

describe("operator route for every group", () => {
  test("sets the five groups the application API drops, through the same deploy path (version, webhook, bundle)", async () => {
    const v = await t.createVideo(ws);
    const groups = {
      headline_options: { enabled: true, text: "Watch before it is gone" },
      pitch_time_options: { enabled: true, time_s: 12 },
      cloak_options: { enabled: true },
      share_options: { enabled: true, networks: ["facebook", "x"] },
      actions_options: { enabled: true, actions: [{ trigger: "time", time_s: 20, type: "pause" }] },
    };
    // The application API drops them silently.
    expect((await deploy(v.id, groups)).status).toBe(200);
    expect((await settingsOf(v.id)).cloak_options.enabled).toBe(false);

    const draft = await operator("draft", v.id, groups);
    expect(draft.status).toBe(200);
    expect(draft.body.draft.headline_options.text).toBe("Watch before it is gone");
    const res = await operator("deploy", v.id, { ...groups, style_options: { main_color: "#e11d48" }, _version_label: "Sales page" });
    expect(res.status).toBe(200);
    expect(res.body.embed_url).toEndWith(`/cdn/p/${v.code}.js`);
    const live = await settingsOf(v.id);
    for (const [name, value] of Object.entries(groups)) expect(live[name]).toMatchObject(value);
    expect(live.style_options.main_color).toBe("#e11d48");
    const versions = await t.call("GET", `/api/v1/videos/${v.id}/deploys`, { token: ws.token });
    expect(versions.body.data[0]).toMatchObject({ id: res.body.version_id, label: "Sales page", is_live: true });
    expect(versions.body.data[0].settings_snapshot.share_options.networks).toEqual(["facebook", "x"]);
    const events = await t.deps.sql`SELECT data FROM outbox WHERE event = 'video.settings.deployed' AND (data ->> 'video_id')::bigint = ${v.id}`;
    expect(events.map((e) => e.data.version_id)).toContain(res.body.version_id);
    // The bundle carries them.
    const bundle = await new Response((await t.deps.blobs.cdnA.get(`p/${v.code}.js`))!.body).text();
    expect(bundle).toContain("Watch before it is gone");
  });

  test("lists are replaced whole, so the dashboard can remove a row (the application API merges them by index)", async () => {
    const v = await t.createVideo(ws);
    const three = [1, 2, 3].map((time_s) => ({ time_s, selector: `#s${time_s}` }));
    expect((await deploy(v.id, { timed_events_options: { events: three }, share_options: { enabled: true } })).status).toBe(200);
    expect((await deploy(v.id, { timed_events_options: { events: [three[2]] } })).status).toBe(200);
    expect((await settingsOf(v.id)).timed_events_options.events.map((e: { selector: string }) => e.selector)).toEqual(["#s3", "#s2", "#s3"]);
    expect((await operator("deploy", v.id, { timed_events_options: { events: [three[0]] }, share_options: { networks: ["x", "email"] } })).status).toBe(200);
    expect((await operator("deploy", v.id, { share_options: { networks: ["email"] } })).status).toBe(200);
    const live = await settingsOf(v.id);
    expect(live.timed_events_options.events).toEqual([three[0]]);
    expect(live.share_options.networks).toEqual(["email"]);
  });

  test("admin key required; another workspace's video is a 404 and changes nothing", async () => {
    const v = await t.createVideo(ws);
    expect((await operator("deploy", v.id, { cloak_options: { enabled: true } }, ws.id, ws.token)).status).toBe(401);
    const other = await t.workspace();
    const res = await operator("deploy", v.id, { cloak_options: { enabled: true } }, other.id);
    expect(res.status).toBe(404);
    expect((await settingsOf(v.id)).cloak_options.enabled).toBe(false);
  });
});

describe("timed events in GET /embed and GET /config", () => {
  test("the live list, each entry with the player's defaults", async () => {
    const v = await t.createVideo(ws);
    const events = [
      { time_s: 12.5, selector: "#buy-button", name: "offer" },
      { time_s: 40, selector: ".urgency", action: "hide", persist: false },
    ];
    expect((await deploy(v.id, { timed_events_options: { events } })).status).toBe(200);
    const expected = [
      { time_s: 12.5, selector: "#buy-button", action: "show", name: "offer", persist: true },
      { time_s: 40, selector: ".urgency", action: "hide", name: null, persist: false },
    ];
    const embed = await t.call("GET", `/api/v1/videos/${v.id}/embed`, { token: ws.token });
    expect(embed.body.timed_events).toEqual(expected);
    const config = await t.call("GET", `/api/v1/videos/${v.id}/config`, { token: ws.token });
    expect(config.body.timed_events_options).toEqual(expected);
  });
});

describe("a lead form's answer on POST /v1/collect", () => {
  const collect = (video: { code: string }, session: string, device: string, events: unknown[]) =>
    t.call("POST", "/v1/collect", {
      body: { workspace_code: ws.code, video_code: video.code, session_id: session, device_id: device, events },
      headers: { "X-Forwarded-For": `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` },
    });
  const status = (video: { code: string }, session: string, device: string) =>
    t.call("GET", `/v1/lead-status?workspace_code=${ws.code}&video_code=${video.code}&session_id=${session}&device_id=${device}`);

  test("lead upserted once, lead_form.submitted with identity, the session tied to the email on a second device, not asked again", async () => {
    const v = await t.createVideo(ws);
    const email = `Lead-${crypto.randomUUID().slice(0, 8)}@Example.com`;
    const [s1, d1, s2, d2] = ["s1", "d1", "s2", "d2"].map((p) => `${p}-${crypto.randomUUID()}`);
    expect((await status(v, s1, d1)).body).toEqual({ submitted: false });
    expect((await collect(v, s1, d1, [{ type: "play" }])).status).toBe(200);
    const lead = {
      type: "lead_form_submitted",
      video_time: 4,
      email,
      phone: "+44 20 7946 0000",
      properties: { first_name: "Ann", last_name: "Lee", url: "https://shop.example/vsl" },
    };
    expect((await collect(v, s1, d1, [lead])).status).toBe(200);

    const submitted = await t.deps.sql`SELECT data FROM outbox WHERE event = 'lead_form.submitted' AND data ->> 'session_id' = ${s1}`;
    expect(submitted).toHaveLength(1);
    expect(submitted[0]!.data.identity).toEqual({ email: email.toLowerCase(), first_name: "Ann", last_name: "Lee", phone_sha256: sha256("+442079460000") });
    // The number in any spelling ("7946 0000", "79460000"); four digits alone also turn up in random ids.
    expect(JSON.stringify(submitted[0]!.data)).not.toMatch(/7946\D?0000/);
    const captured = await t.deps.sql`SELECT data FROM outbox WHERE event = 'lead.captured' AND data -> 'identity' ->> 'email' = ${email.toLowerCase()}`;
    expect(captured).toHaveLength(1);
    expect(captured[0]!.data).toMatchObject({
      video_code: v.code,
      identity: { email: email.toLowerCase(), first_name: "Ann" },
      url: "https://shop.example/vsl",
    });
    expect((await status(v, s1, d1)).body).toEqual({ submitted: true });
    // Another session on the same device.
    expect((await status(v, `s3-${crypto.randomUUID()}`, d1)).body).toEqual({ submitted: true });

    // The same email on a second device: no second lead.captured, and that session joins the email's identity.
    expect((await collect(v, s2, d2, [{ type: "play" }])).status).toBe(200);
    expect((await status(v, s2, d2)).body).toEqual({ submitted: false });
    expect((await collect(v, s2, d2, [{ ...lead, phone: undefined }])).status).toBe(200);
    expect(
      (await t.deps.sql`SELECT count(*)::int AS n FROM outbox WHERE event = 'lead.captured' AND data -> 'identity' ->> 'email' = ${email.toLowerCase()}`)[0]!.n,
    ).toBe(1);
    const [one] = await t.deps.sql`SELECT viewer_id FROM viewer_sessions WHERE workspace_id = ${ws.id} AND session_code = ${s1}`;
    const [two] = await t.deps.sql`SELECT viewer_id FROM viewer_sessions WHERE workspace_id = ${ws.id} AND session_code = ${s2}`;
    expect(two!.viewer_id).toBe(one!.viewer_id);
    // Later events of the second session attribute to the identity: a backend event by email and by session resolve to the same viewer.
    const bySession = await t.call("POST", "/v1/event", { token: ws.token, body: { event: "checkout", session_id: s2 } });
    expect(bySession.body).toMatchObject({ attributed: true, matched_by: "session_id" });
    const rows = (await (
      await t.deps.ch.query({
        query: "SELECT viewer_id, event_type FROM events WHERE workspace_id = {w:UInt64} AND session_code = {s:String} ORDER BY created_at",
        query_params: { w: ws.id, s: s2 },
        format: "JSONEachRow",
      })
    ).json()) as { viewer_id: string | number; event_type: string }[];
    expect(Number(rows.find((r) => r.event_type === "custom")!.viewer_id)).toBe(Number(one!.viewer_id));
    expect(Number(rows.find((r) => r.event_type === "lead_form_submitted")!.viewer_id)).toBe(Number(one!.viewer_id));
    // A sale on the second session is the identity's.
    const order = `order-${crypto.randomUUID()}`;
    const sale = await t.call("POST", "/api/v1/conversions", {
      token: ws.token,
      body: { video_code: v.code, session_code: s2, conversion_id: order, conversion_value: 49 },
    });
    expect(sale.status).toBeLessThan(300);
    const [ledger] = await t.deps.sql`SELECT viewer_id FROM conversions WHERE workspace_id = ${ws.id} AND conversion_id = ${order}`;
    expect(Number(ledger!.viewer_id)).toBe(Number(one!.viewer_id));
    expect((await status(v, s2, d2)).body).toEqual({ submitted: true });
    // Another video's form is its own.
    expect((await status(await t.createVideo(ws), s2, d2)).body).toEqual({ submitted: false });
  });

  test("unknown codes answer false; the route answers CORS", async () => {
    const res = await t.call("GET", `/v1/lead-status?workspace_code=nope&video_code=nope&session_id=abc`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ submitted: false });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("OpenAPI", () => {
  test("the settings routes document each group's fields; the operator route also the five the application API drops", async () => {
    const doc = (await t.call("GET", "/api/v1/openapi.json")).body;
    // Each group's schema sits under allOf (documentation only: bodies are partial, validation runs on the merged settings).
    const body = (path: string) =>
      Object.fromEntries(
        Object.entries(doc.paths[path].post.requestBody.content["application/json"].schema.properties).map(([k, v]: [string, any]) => [
          k,
          { ...v.allOf?.[0], description: v.description },
        ]),
      ) as Record<string, any>;
    const deploy = body("/api/v1/videos/{video}/deploy");
    expect(deploy.timed_events_options.properties.events.items.properties.selector).toMatchObject({ maxLength: 500, format: "frameline-css-selector" });
    expect(deploy.lead_form_options.properties.fields.items.anyOf.map((a: { const: string }) => a.const)).toEqual([
      "email",
      "first_name",
      "last_name",
      "phone",
    ]);
    expect(deploy.lead_form_options.description).toContain('"time_s":0');
    expect(body("/api/v1/videos/{video}/draft").watch_gate_options.properties.gate_time_s.type).toBe("number");
    expect(deploy.headline_options).toBeUndefined();
    expect(body("/api/v1/videos/{video}/deploy").style_options.properties.main_color.format).toBe("frameline-css-color");
    const operator = body("/admin/v1/workspaces/{id}/videos/{video}/deploy");
    for (const group of ["headline_options", "pitch_time_options", "cloak_options", "share_options", "actions_options"]) expect(operator[group]).toBeObject();
    expect(operator.actions_options.properties.actions.items.properties.type.anyOf).toHaveLength(3);
  });
});
