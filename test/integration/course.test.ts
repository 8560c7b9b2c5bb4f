/**
 * The server half of courses and interactive video: lesson_completed and
 * playlist_ended on /v1/collect mark a viewer's course progress and announce
 * `lesson.completed` / `playlist.ended` once per viewer, course and lesson;
 * GET /v1/course-progress answers that progress by session, device, then the
 * identity a lead form gave; GET /v1/resume-position answers an identified
 * viewer's last position and nothing else; a quiz answer is in the events read
 * and the `quiz.answered` webhook; the quiz and notes groups are typed.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { appAndWorkspace, invalidFields, type TestApp, type TestWorkspace, UNLIMITED } from "../helpers/app.ts";

let t: TestApp;
let ws: TestWorkspace;
beforeAll(async () => ({ t, ws } = await appAndWorkspace({ config: { ...UNLIMITED, trustProxy: true }, fixturePlayer: true })), 120_000);

const id = (p: string) => `${p}-${crypto.randomUUID()}`;
const collect = (video: { code: string }, session: string, device: string, events: unknown[]) =>
  t.call("POST", "/v1/collect", {
    body: { workspace_code: ws.code, video_code: video.code, session_id: session, device_id: device, events },
    headers: { "X-Forwarded-For": `10.8.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` },
  });
const query = (video: { code: string }, session: string, device?: string) =>
  new URLSearchParams({ workspace_code: ws.code, video_code: video.code, session_id: session, ...(device ? { device_id: device } : {}) });
const progress = async (course: { code: string }, session: string, device?: string) =>
  (await t.call("GET", `/v1/course-progress?${query(course, session, device)}`)).body;
const position = async (video: { code: string }, session: string, device?: string) =>
  (await t.call("GET", `/v1/resume-position?${query(video, session, device)}`)).body.position_s;
const outbox = async (event: string, session: string) =>
  (await t.deps.sql`SELECT data FROM outbox WHERE event = ${event} AND data ->> 'session_id' = ${session} ORDER BY id`).map((r) => r.data);
const lead = (email: string) => ({ type: "lead_form_submitted", video_time: 0, email, properties: { url: "https://school.example/course" } });
const completed = (lesson: { code: string }, course: { code: string }) => ({
  type: "lesson_completed",
  video_time: 3,
  video_code: lesson.code,
  container_video_code: course.code,
});

describe("course progress", () => {
  test("a lesson completes once per viewer: a rewatch announces nothing; progress by session, then device; others see none", async () => {
    const [course, two] = [await t.createVideo(ws), await t.createVideo(ws)];
    const [s1, d1] = [id("s"), id("d")];
    expect(await progress(course, s1, d1)).toEqual({ completed: [], ended: false });
    // Lesson 1 is the container itself; lesson 2's batch carries its own video code.
    expect((await collect(course, s1, d1, [{ type: "ended", video_time: 3 }, completed(course, course)])).status).toBe(200);
    expect((await collect(course, s1, d1, [completed(course, course)])).status).toBe(200);
    expect((await collect(two, s1, d1, [completed(two, course), { type: "playlist_ended", video_time: 3, container_video_code: course.code }])).status).toBe(
      200,
    );
    expect((await collect(two, s1, d1, [completed(two, course), { type: "playlist_ended", video_time: 3, container_video_code: course.code }])).status).toBe(
      200,
    );

    const lessons = await outbox("lesson.completed", s1);
    expect(lessons.map((d) => [d.video.code, d.lesson_video_code])).toEqual([
      [course.code, course.code],
      [two.code, two.code],
    ]);
    expect(await outbox("playlist.ended", s1)).toHaveLength(1);
    expect(await progress(course, s1)).toEqual({ completed: [course.code, two.code], ended: true });
    // Another session on the same device is the same viewer.
    expect((await progress(course, id("s"), d1)).completed).toEqual([course.code, two.code]);
    // A stranger, another course, unknown codes: nothing.
    expect(await progress(course, id("s"), id("d"))).toEqual({ completed: [], ended: false });
    expect((await progress(two, s1)).completed).toEqual([]);
    const unknown = await t.call("GET", `/v1/course-progress?workspace_code=nope&video_code=nope&session_id=abc`);
    expect([unknown.status, unknown.body]).toEqual([200, { completed: [], ended: false }]);
    expect(unknown.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("identified by a lead form, the progress follows the email to another device, with what a session did before it was known", async () => {
    const [course, two, three] = [await t.createVideo(ws), await t.createVideo(ws), await t.createVideo(ws)];
    const email = `${id("learner")}@example.com`;
    const [laptop, laptopDevice, phone, phoneDevice, tablet, tabletDevice] = [id("s"), id("d"), id("s"), id("d"), id("s"), id("d")];
    await collect(course, laptop, laptopDevice, [lead(email)]);
    await collect(course, laptop, laptopDevice, [completed(course, course)]);
    // The phone: a stranger until it leaves the same email.
    expect((await progress(course, phone, phoneDevice)).completed).toEqual([]);
    await collect(course, phone, phoneDevice, [lead(email)]);
    expect((await progress(course, phone, phoneDevice)).completed).toEqual([course.code]);
    // The tablet completes lesson 2 anonymously, then leaves the email: both devices see both lessons.
    await collect(two, tablet, tabletDevice, [completed(two, course)]);
    await collect(course, tablet, tabletDevice, [lead(email)]);
    expect((await progress(course, tablet)).completed.sort()).toEqual([course.code, two.code].sort());
    expect((await progress(course, laptop)).completed.sort()).toEqual([course.code, two.code].sort());
    // Lesson 2 was announced once, by the tablet; the laptop completing it again announces nothing.
    await collect(three, laptop, laptopDevice, [completed(two, course)]);
    expect(await outbox("lesson.completed", laptop)).toHaveLength(1);
  });
});

describe("resume on any device", () => {
  test("an identified viewer's last position, on another device; an anonymous one's is not kept; the end clears it", async () => {
    const video = await t.createVideo(ws);
    const [anon, anonDevice] = [id("s"), id("d")];
    await collect(video, anon, anonDevice, [{ type: "pause", video_time: 42 }]);
    expect(await position(video, anon, anonDevice)).toBeNull();

    const email = `${id("viewer")}@example.com`;
    const [laptop, laptopDevice, phone, phoneDevice] = [id("s"), id("d"), id("s"), id("d")];
    await collect(video, laptop, laptopDevice, [lead(email), { type: "watched", video_time: 10, from_s: 0, to_s: 10 }]);
    await collect(video, laptop, laptopDevice, [
      { type: "heartbeat", video_time: 20, ranges: [{ from_s: 10, to_s: 20 }] },
      { type: "pause", video_time: 754.6 },
    ]);
    expect(await position(video, laptop)).toBe(754);
    // Another device knows nothing until the viewer is known there (a lead form, or the laptop's session through fl_sid).
    expect(await position(video, phone, phoneDevice)).toBeNull();
    await collect(video, phone, phoneDevice, [lead(email)]);
    expect(await position(video, phone, phoneDevice)).toBe(754);
    const res = await t.call("GET", `/v1/resume-position?${query(video, phone)}`);
    expect(res.body).toEqual({ position_s: 754 });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    // Watched to the end: start over.
    await collect(video, phone, phoneDevice, [{ type: "ended", video_time: 800 }]);
    expect(await position(video, laptop)).toBeNull();
    // Bad input is the events host's 400, with CORS.
    const bad = await t.call("GET", `/v1/resume-position?workspace_code=${ws.code}`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("quiz answers", () => {
  test("in the events read as question:choice:correct|wrong, and in the quiz.answered webhook", async () => {
    const video = await t.createVideo(ws);
    const session = id("s");
    const answer = (choice: string, correct?: boolean) => ({
      type: "quiz_answered",
      video_time: 12,
      properties: { question_id: "q1", choice_id: choice, ...(correct === undefined ? {} : { correct }) },
    });
    expect((await collect(video, session, id("d"), [answer("b", false), answer("a", true), answer("x")])).status).toBe(200);
    let rows: { event_type: string; event: string | null; video_time: number }[] = [];
    for (let i = 0; i < 100 && rows.length < 3; i++) {
      rows = (await t.call("GET", `/api/v1/videos/${video.id}/analytics/events?event_type=quiz_answered`, { token: ws.token })).body.events.data;
      if (rows.length < 3) await Bun.sleep(50);
    }
    expect(rows.map((r) => r.event).sort()).toEqual(["q1:a:correct", "q1:b:wrong", "q1:x"]);
    const hooks = await outbox("quiz.answered", session);
    expect(hooks.map((d) => d.properties)).toEqual([
      { question_id: "q1", choice_id: "b", correct: "false" },
      { question_id: "q1", choice_id: "a", correct: "true" },
      { question_id: "q1", choice_id: "x" },
    ]);
  });
});

describe("typed groups", () => {
  test("quiz questions and notes are checked on deploy, 422 beside the field", async () => {
    const v = await t.createVideo(ws);
    const res = await t.call("POST", `/api/v1/videos/${v.id}/deploy`, {
      token: ws.token,
      body: {
        quiz_options: {
          enabled: true,
          questions: [
            { id: "q1", time_s: 5, question: "Ready?", choices: [] },
            { id: "q2", time_s: -1, question: "", choices: [{ id: "a" }] },
          ],
        },
        notes_options: { enabled: true, notes: [{ time_s: 3, text: "Intro", url: "javascript:alert(1)" }] },
      },
    });
    expect(invalidFields(res)).toEqual([
      "notes_options.notes.0.url",
      "quiz_options.questions.0.choices",
      "quiz_options.questions.1.choices.0.text",
      "quiz_options.questions.1.question",
      "quiz_options.questions.1.time_s",
    ]);
    const ok = await t.call("POST", `/api/v1/videos/${v.id}/deploy`, {
      token: ws.token,
      body: {
        quiz_options: {
          enabled: true,
          questions: [{ id: "q1", time_s: 5, question: "Ready?", required: true, choices: [{ id: "a", text: "Yes", correct: true, jump_to_s: 30 }] }],
        },
        notes_options: { enabled: true, notes: [{ time_s: 3, text: "Intro", url: "https://example.com" }] },
        cross_device_resume_options: { enabled: true },
      },
    });
    expect(ok.status).toBe(200);
  });
});
