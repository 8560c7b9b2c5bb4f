/**
 * Courses and interactive video in real headless Chromium, after real deploys:
 * the real server (`bun server/main.ts`, embedded engines) encodes clips made by
 * ffmpeg, a course is built through the playlist API, quizzes, notes and resume
 * on any device are deployed through the application API, and a customer page
 * on another origin runs the embed snippet. Each test checks what the viewer
 * sees, what the events read (GET /analytics/events) shows and what a
 * subscribed webhook receiver gets.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { page as html, until } from "../helpers/browser.ts";
import { clip } from "../helpers/media.ts";
import type { Receiver } from "../helpers/receiver.ts";
import { type Stage, startStage, type Video, watchErrors } from "../helpers/stage.ts";

let stage: Stage;
let base: string;
let clips: { short: string; long: string };
let browser: Browser;
let receiver: Receiver;
let ws: Stage["ws"];
const api: Stage["api"] = (...args) => stage.api(...args);
const readyVideo = (title: string, file: string) => stage.readyVideo(title, file);
const eventsRead = (video: Video) => stage.eventsRead(video);

async function deploy(video: Video, groups: Record<string, unknown>): Promise<void> {
  const res = await api("POST", `/api/v1/videos/${video.id}/deploy`, groups);
  expect([res.status, res.body]).toEqual([200, expect.anything()]);
}
const snippet = async (video: Video) => (await api("GET", `/api/v1/videos/${video.id}/embed`)).body.html as string;

/** Deliveries of one event for a video (player events carry `video`). */
const hooks = (event: string, video: Video) => receiver.requests.map((r) => r.json).filter((d) => d?.event === event && d?.data?.video?.id === video.id);

const serveSite = (name: string, body: string) => stage.serve(`/${name}.html`, html(body));

const videoTime = (p: Page) => p.evaluate(() => document.querySelector("video")!.currentTime);
const lessons = (p: Page) =>
  p.evaluate(() =>
    [...document.querySelectorAll(".fl-list li")].map((li) => ({
      text: li.textContent,
      locked: li.classList.contains("fl-locked"),
      done: !!li.querySelector(".fl-check"),
      on: li.classList.contains("fl-on"),
    })),
  );

async function answerLeadForm(p: Page, email: string): Promise<void> {
  await p.waitForSelector(".fl-lead", { timeout: 15_000 });
  await p.fill(".fl-lead-email input", email);
  await p.click(".fl-lead-submit");
  expect(await p.locator(".fl-lead").count()).toBe(0);
}

beforeAll(async () => {
  const [started, short, long] = await Promise.all([startStage("Courses"), clip("landscape"), clip("long")]);
  stage = started;
  ({ base, browser, receiver, ws } = stage);
  clips = { short, long };
}, 180_000);

afterAll(() => stage?.stop());

describe("course mode", () => {
  test("lesson 2 is locked until lesson 1 completes; progress survives a reload and reaches a new browser once the viewer is identified; a rewatch announces nothing twice", async () => {
    const [one, two, three] = await Promise.all([readyVideo("Welcome", clips.short), readyVideo("Setup", clips.short), readyVideo("Wrap-up", clips.short)]);
    const made = await api("POST", "/api/v1/playlists", {
      video_id: one!.id,
      playback_mode: "course",
      items: [
        { video_code: one!.code, title: "Welcome" },
        { video_code: two!.code, title: "Setup" },
        { video_code: three!.code, title: "Wrap-up" },
      ],
      auto_advance: false,
    });
    expect(made.status).toBe(201);
    for (const [i, v] of [one!, two!, three!].entries())
      expect((await api("PATCH", `/api/v1/playlists/${one!.id}/videos/${v.code}`, { lesson_label: `Lesson ${i + 1}` })).status).toBe(200);
    expect((await api("PATCH", `/api/v1/playlists/${one!.id}`, { lesson_navigation: "both" })).status).toBe(200);
    await deploy(one!, { lead_form_options: { enabled: true, time_s: 0, skippable: false } });
    const url = serveSite("course", await snippet(one!));
    const email = `learner-${crypto.randomUUID().slice(0, 8)}@example.com`;

    // First device: lesson 2 and 3 locked, neither the list nor the next button opens them.
    const first = await browser.newContext();
    let p = await first.newPage();
    const errors = watchErrors(p);
    await p.goto(url);
    await p.waitForSelector(".fl-list li", { timeout: 15_000 });
    let list = await lessons(p);
    expect(list.map((l) => [l.text?.includes(`Lesson ${list.indexOf(l) + 1}`), l.locked, l.done])).toEqual([
      [true, false, false],
      [true, true, false],
      [true, true, false],
    ]);
    expect(await p.locator(".fl-list li").nth(1).getAttribute("aria-disabled")).toBe("true");
    await p.locator(".fl-list li").nth(1).click();
    // The next button says it is disabled; a click anyway does nothing.
    expect(await p.locator(".fl-nextb").getAttribute("aria-disabled")).toBe("true");
    await p.click(".fl-nextb", { force: true });
    expect((await lessons(p)).map((l) => l.on)).toEqual([true, false, false]);
    // The viewer leaves an email, then watches lesson 1 to its end.
    await p.click(".fl-big");
    await answerLeadForm(p, email);
    await p.waitForFunction(() => document.querySelector("video")!.ended, null, { timeout: 20_000 });
    await until(async () => (await lessons(p))[0]!.done, 5_000);
    list = await lessons(p);
    expect(list.map((l) => [l.locked, l.done])).toEqual([
      [false, true],
      [false, false],
      [true, false],
    ]);
    expect(await p.locator(".fl-check").first().getAttribute("aria-label")).toBe("Completed");
    await until(() => hooks("lesson.completed", one!).length === 1, 20_000);
    expect(hooks("lesson.completed", one!)[0]!.data.lesson_video_code).toBe(one!.code);
    // Lesson 2 opens now.
    await p.locator(".fl-list li").nth(1).click();
    await until(async () => (await lessons(p))[1]!.on, 5_000);

    // A reload keeps the progress.
    await p.reload();
    await p.waitForSelector(".fl-list li .fl-check", { timeout: 15_000 });
    expect((await lessons(p)).map((l) => [l.locked, l.done])).toEqual([
      [false, true],
      [false, false],
      [true, false],
    ]);

    // A rewatch of lesson 1 ends again: `ended` twice, `lesson.completed` still once.
    await p.click(".fl-big");
    await p.waitForFunction(() => document.querySelector("video")!.ended, null, { timeout: 20_000 });
    await until(() => hooks("ended", one!).length >= 2, 20_000);
    const lessonRows = async () => (await eventsRead(one!)).filter((r) => r.event_type === "lesson_completed").length;
    await until(async () => (await lessonRows()) >= 2, 20_000);
    await Bun.sleep(1500);
    expect(hooks("lesson.completed", one!)).toHaveLength(1);
    expect(errors).toEqual([]);
    await first.close();

    // A new browser: a stranger at first; the same email brings the progress.
    const second = await browser.newContext();
    p = await second.newPage();
    await p.goto(url);
    await p.waitForSelector(".fl-list li", { timeout: 15_000 });
    await Bun.sleep(500);
    expect((await lessons(p)).map((l) => [l.locked, l.done])).toEqual([
      [false, false],
      [true, false],
      [true, false],
    ]);
    await p.click(".fl-big");
    await answerLeadForm(p, email);
    await until(async () => (await lessons(p))[0]!.done, 10_000);
    expect((await lessons(p)).map((l) => [l.locked, l.done])).toEqual([
      [false, true],
      [false, false],
      [true, false],
    ]);
    await p.screenshot({ path: "test/artifacts/course.png" });
    await second.close();
    expect(hooks("lesson.completed", one!)).toHaveLength(1);
  }, 240_000);
});

describe("quizzes and notes", () => {
  test("a required question pauses playback, records the answer (events read, webhook) and jumps; notes are highlighted and seek", async () => {
    const video = await readyVideo("Lesson with a quiz", clips.long);
    await deploy(video, {
      quiz_options: {
        enabled: true,
        questions: [
          {
            id: "q1",
            time_s: 1.5,
            question: "Which plan fits a team?",
            required: true,
            choices: [
              { id: "solo", text: "Solo" },
              { id: "team", text: "Team", correct: true, jump_to_s: 5.5 },
            ],
          },
        ],
      },
      notes_options: {
        enabled: true,
        notes: [
          { time_s: 1, text: "What you will learn" },
          { time_s: 5, text: "The team plan", url: "https://example.com/team" },
        ],
      },
    });
    const url = serveSite("quiz", await snippet(video));
    const context = await browser.newContext();
    const p = await context.newPage();
    const errors = watchErrors(p);
    await p.goto(url);
    await p.waitForSelector(".fl-notes li", { timeout: 15_000 });
    expect(await p.locator(".fl-notes li").allTextContents()).toEqual(["0:01What you will learnOpen".replace("Open", ""), "0:05The team planOpen"]);
    await p.click(".fl-big");
    await p.waitForSelector(".fl-quiz[role=dialog]", { timeout: 15_000 });
    await until(async () => (await p.locator(".fl-sr[aria-live=polite]").textContent()) === "Which plan fits a team?", 2_000); // announced
    // Paused at the question, which cannot be skipped; a play asked meanwhile is undone.
    const askedAt = await videoTime(p);
    expect(askedAt).toBeGreaterThanOrEqual(1.4);
    expect(askedAt).toBeLessThan(3);
    expect(await p.evaluate(() => document.querySelector("video")!.paused)).toBe(true);
    expect(await p.locator(".fl-quiz-skip").count()).toBe(0);
    expect(await p.locator(".fl-notes li.fl-on").textContent()).toContain("What you will learn");
    await p.evaluate(() => document.querySelector("video")!.play());
    await Bun.sleep(300);
    expect(await p.evaluate(() => document.querySelector("video")!.paused)).toBe(true);
    // The right answer jumps ahead.
    await p.locator(".fl-quiz-choice", { hasText: "Team" }).click();
    expect(await p.locator(".fl-quiz").count()).toBe(0);
    await p.waitForFunction(() => document.querySelector("video")!.currentTime >= 5.5, null, { timeout: 10_000 });
    await until(async () => (await p.locator(".fl-notes li.fl-on").textContent())?.includes("The team plan"), 5_000);
    // A click on a note seeks there.
    await p.locator(".fl-notes .fl-note").first().click();
    await until(async () => {
      const t = await videoTime(p);
      return t >= 1 && t < 2;
    }, 5_000);
    await until(async () => (await p.locator(".fl-notes li.fl-on").textContent())?.includes("What you will learn"), 5_000);
    expect(errors).toEqual([]);
    await context.close();

    await until(async () => (await eventsRead(video)).some((r) => r.event_type === "quiz_answered"), 20_000);
    const answer = (await eventsRead(video)).find((r) => r.event_type === "quiz_answered")!;
    expect(answer.event).toBe("q1:team:correct");
    await until(() => hooks("quiz.answered", video).length === 1, 20_000);
    expect(hooks("quiz.answered", video)[0]!.data.properties).toMatchObject({ question_id: "q1", choice_id: "team", correct: "true" });
  }, 180_000);
});

describe("resume on any device", () => {
  test("an identified viewer's position is offered in a second browser", async () => {
    const video = await readyVideo("Long lesson", clips.long);
    await deploy(video, { cross_device_resume_options: { enabled: true }, lead_form_options: { enabled: true, time_s: 0 } });
    const url = serveSite("resume", await snippet(video));
    const laptop: BrowserContext = await browser.newContext();
    let p = await laptop.newPage();
    await p.goto(url);
    await p.click(".fl-big");
    await answerLeadForm(p, `resume-${crypto.randomUUID().slice(0, 8)}@example.com`);
    await p.waitForFunction(() => document.querySelector("video")!.currentTime >= 4, null, { timeout: 15_000 });
    await p.evaluate(() => document.querySelector("video")!.pause());
    const pausedAt = await videoTime(p);
    const session = await p.evaluate(() => (window as any).Frameline.getSessionId() as string);
    // The player reports positions to 0.1 s in its batches (heartbeat, pause); the events host keeps the last one
    // and answers whole seconds (floored). The pause's batch may land after an earlier heartbeat's, and the phone may
    // ask in between: the tolerance is the player's own, a position within a second of where the laptop paused.
    const TOLERANCE_S = 1;
    await until(async () => {
      const res = await fetch(
        `${base}/v1/resume-position?${new URLSearchParams({ workspace_code: ws.code, video_code: video.code, session_id: session, device_id: "x".repeat(32) })}`,
      );
      const at = (await res.json()).position_s as number | null;
      return at !== null && Math.abs(at - pausedAt) <= TOLERANCE_S;
    }, 20_000);
    await laptop.close();

    // The phone joins the same session through the link it was sent (`fl_sid`), without the laptop's storage.
    const phone = await browser.newContext();
    p = await phone.newPage();
    await p.goto(`${url}?fl_sid=${session}`);
    const go = p.locator(".fl-resume-go");
    await go.waitFor({ timeout: 15_000 });
    const offered = /^Continue at 0:(\d\d)$/.exec((await go.textContent()) ?? "");
    expect(offered).not.toBeNull();
    const at = Number(offered![1]);
    expect(Math.abs(at - pausedAt)).toBeLessThanOrEqual(TOLERANCE_S);
    await go.click();
    await p.waitForFunction((t) => document.querySelector("video")!.currentTime >= t, at, { timeout: 15_000 });
    await phone.close();

    // A stranger gets no position.
    const res = await fetch(`${base}/v1/resume-position?workspace_code=${ws.code}&video_code=${video.code}&session_id=${"y".repeat(32)}`);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(await res.json()).toEqual({ position_s: null });
  }, 180_000);
});
