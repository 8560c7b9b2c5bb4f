/**
 * Funnels (docs/api.md "Funnels"): a quiz choice or a CTA card names the next video,
 * checked at save time against the workspace's videos; player batches through the
 * real events host carry the steps, and the report counts each path with its
 * viewers, plays, completions, leads and revenue. Another workspace sees none of it.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { appAndWorkspace, invalidFields, type TestApp, type TestVideo, type TestWorkspace } from "../helpers/app.ts";

let t: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;
let entry: TestVideo;
let yes: TestVideo;
let no: TestVideo;
let offer: TestVideo;
let foreign: TestVideo;
let at = Date.now() - 30 * 60_000;

async function collect(session: string, device: string, video: TestVideo, events: Record<string, unknown>[]) {
  const res = await t.app.handle(
    new Request("http://127.0.0.1:8080/v1/collect", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ workspace_code: a.code, video_code: video.code, session_id: session, device_id: device, events }),
    }),
  );
  expect(res.status).toBe(200);
}
const ev = (type: string, fields: Record<string, unknown> = {}) => ({ type, t: (at += 1000), video_time: 0, ...fields });
const answer = (choice: string, next: TestVideo) => ev("quiz_answered", { properties: { question_id: "q1", choice_id: choice, next_video_code: next.code } });
const get = (path: string, token = a.token) => t.call("GET", path, { token });
const quiz = (choices: Record<string, unknown>[]) => ({
  quiz_options: { enabled: true, questions: [{ id: "q1", time_s: 5, question: "Which fits you?", choices }] },
});

beforeAll(async () => {
  ({ t, ws: a } = await appAndWorkspace());
  b = await t.workspace();
  entry = await t.createVideo(a, { title: "Quiz" });
  yes = await t.createVideo(a, { title: "Yes path" });
  no = await t.createVideo(a, { title: "No path" });
  offer = await t.createVideo(a, { title: "Offer" });
  foreign = await t.createVideo(b, { title: "Elsewhere" });
}, 60_000);

describe("next_video_code in settings", () => {
  test("a quiz choice or a CTA card naming a video of this workspace deploys; the bundle then carries the swap", async () => {
    const res = await t.call("POST", `/api/v1/videos/${entry.id}/deploy`, {
      token: a.token,
      body: quiz([
        { id: "yes", text: "Yes, show me", next_video_code: yes.code },
        { id: "no", text: "Not yet", next_video_code: no.code },
      ]),
    });
    expect(res.status).toBe(200);
    const card = await t.call("POST", `/api/v1/videos/${yes.id}/deploy`, {
      token: a.token,
      body: { cta_cards_options: { enabled: true, cards: [{ time_s: 1, text: "Ready?", button_text: "See the offer", next_video_code: offer.code }] } },
    });
    expect(card.status).toBe(200);
    const settings = await get(`/api/v1/videos/${entry.id}/settings`);
    expect(JSON.stringify(settings.body)).toContain(`"next_video_code":"${yes.code}"`);
    // The swap is compiled into the entries that use it (features/funnel.ts), and only those.
    const bundle = async (v: TestVideo) => (await t.app.handle(new Request(v.script_url))).text();
    expect(await bundle(entry)).toContain("data-fl-mounted");
    expect(await bundle(yes)).toContain("data-fl-mounted");
    await t.call("POST", `/api/v1/videos/${no.id}/deploy`, { token: a.token, body: quiz([{ id: "a", text: "A" }]) });
    expect(await bundle(no)).not.toContain("data-fl-mounted");
  });

  test("another workspace's video, an unknown code or a non-string is a 422 beside the field", async () => {
    const field = "quiz_options.questions.0.choices.0.next_video_code";
    for (const code of [foreign.code, crypto.randomUUID(), "not-a-code", entry.code.toUpperCase().replace(/^./, "z")]) {
      const res = await t.call("POST", `/api/v1/videos/${entry.id}/deploy`, { token: a.token, body: quiz([{ id: "x", text: "X", next_video_code: code }]) });
      expect([code, res.status, invalidFields(res)]).toEqual([code, 422, [field]]);
      expect(res.body.errors[field][0]).toContain("a video of this workspace");
    }
    const draft = await t.call("POST", `/api/v1/videos/${offer.id}/draft`, {
      token: a.token,
      body: { cta_cards_options: { enabled: true, cards: [{ time_s: 1, next_video_code: foreign.code }] } },
    });
    expect([draft.status, invalidFields(draft)]).toEqual([422, ["cta_cards_options.cards.0.next_video_code"]]);
    const wrongType = await t.call("POST", `/api/v1/videos/${entry.id}/deploy`, { token: a.token, body: quiz([{ id: "x", text: "X", next_video_code: 5 }]) });
    expect([wrongType.status, invalidFields(wrongType)]).toEqual([422, [field]]);
  });
});

describe("the funnel report", () => {
  beforeAll(async () => {
    // Two viewers say yes (one of them goes on to the offer and buys), one says no, one only watches.
    const [s1, s2, s3, s4] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    await collect(s1, "d1", entry, [ev("load"), ev("play"), answer("yes", yes)]);
    await collect(s1, "d1", yes, [ev("load"), ev("play"), ev("ended", { video_time: 10 }), ev("cta_click", { card_index: 0, next_video_code: offer.code })]);
    await collect(s1, "d1", offer, [ev("load"), ev("play"), ev("lead_form_submitted", { email: `ann-${s1.slice(0, 6)}@example.com` })]);
    await collect(s2, "d2", entry, [ev("load"), ev("play"), answer("yes", yes)]);
    await collect(s2, "d2", yes, [ev("load")]);
    await collect(s3, "d3", entry, [ev("load"), ev("play"), answer("no", no)]);
    await collect(s3, "d3", no, [ev("load"), ev("play")]);
    await collect(s4, "d4", entry, [ev("load"), ev("play"), ev("ended")]);
    const sale = await t.call("POST", "/api/v1/conversions", {
      token: a.token,
      body: { video_code: offer.code, conversion_id: `order-${s1}`, conversion_value: 97, conversion_currency: "USD", session_code: s1 },
    });
    expect(sale.status).toBe(201);
  }, 60_000);

  test("counts each path from the entry video, depth first, with its figures", async () => {
    const res = await get(`/api/v1/funnels/report?entry_video=${entry.id}`);
    expect(res.status).toBe(200);
    expect(res.body.entry_video).toEqual({ id: entry.id, code: entry.code, title: "Quiz" });
    const steps = res.body.steps.map((s: Record<string, any>) => [
      s.id,
      s.parent_id,
      s.depth,
      s.choice?.label ?? null,
      s.video.title,
      s.viewers,
      s.plays,
      s.completions,
      s.leads,
      s.revenue,
    ]);
    expect(steps).toEqual([
      [0, null, 0, null, "Quiz", 4, 4, 1, 0, []],
      [1, 0, 1, "Yes, show me", "Yes path", 2, 1, 1, 0, []],
      [2, 1, 2, "See the offer", "Offer", 1, 1, 0, 1, [{ currency: "USD", amount: 97 }]],
      [3, 0, 1, "Not yet", "No path", 1, 1, 0, 0, []],
    ]);
    expect(res.body.steps[1].choice.key).toBe("quiz:q1:yes");
    expect(res.body.steps[2].choice.key).toBe("cta:0");
    const before = await get(`/api/v1/funnels/report?entry_video=${entry.id}&from=2020-01-01&to=2020-01-31`);
    expect(before.body.steps.map((s: { sessions: number }) => s.sessions)).toEqual([0]);
  });

  test("bad input is a 422 naming the parameter; another workspace's video is a 404 and its report shows none of this", async () => {
    expect(invalidFields(await get("/api/v1/funnels/report?entry_video=abc"))).toEqual(["entry_video"]);
    expect(invalidFields(await get(`/api/v1/funnels/report?entry_video=${entry.id}&from=2026-13-01`))).toEqual(["from"]);
    const foreignRead = await get(`/api/v1/funnels/report?entry_video=${entry.id}`, b.token);
    expect([foreignRead.status, foreignRead.body.error.code]).toEqual([404, "NOT_FOUND"]);
    const own = await get(`/api/v1/funnels/report?entry_video=${foreign.id}`, b.token);
    expect(own.status).toBe(200);
    expect(own.body.steps).toHaveLength(1);
    expect(own.body.steps[0]).toMatchObject({ sessions: 0, viewers: 0, plays: 0 });
    const noScope = await a.mint(["videos:read"]);
    expect((await get(`/api/v1/funnels/report?entry_video=${entry.id}`, noScope.secret)).status).toBe(403);
  });
});
