/**
 * Funnels in real headless Chromium after real deploys (docs/api.md "Funnels"): the
 * real server encodes two clips; the entry video asks a quiz whose first choice names
 * the second video. A viewer answers it on a customer page: the player swaps to the
 * second video in the same element, without a page load, and plays it to its end; the
 * second video's events carry the session of the first's, and the funnel report
 * counts the path with one viewer at each step.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { page as html, until } from "../helpers/browser.ts";
import { clip } from "../helpers/media.ts";
import { type Stage, startStage, type Video, watchErrors } from "../helpers/stage.ts";

let stage: Stage;
let entry: Video;
let next: Video;
let url: string;

beforeAll(async () => {
  const [started, long, short] = await Promise.all([
    startStage("Funnels", ["videos:read", "videos:write", "analytics:read", "webhooks:write"]),
    clip("long"),
    clip("landscape"),
  ]);
  stage = started;
  [entry, next] = await Promise.all([stage.readyVideo("Which fits you?", long), stage.readyVideo("The plan for you", short)]);
  const deployed = await stage.api("POST", `/api/v1/videos/${entry.id}/deploy`, {
    quiz_options: {
      enabled: true,
      questions: [
        {
          id: "q1",
          time_s: 1,
          question: "Are you selling already?",
          required: true,
          choices: [
            { id: "yes", text: "Yes, show me the plan", next_video_code: next.code },
            { id: "no", text: "Not yet", jump_to_s: 6 },
          ],
        },
      ],
    },
  });
  expect(deployed.status).toBe(200);
  const snippet = (await stage.api("GET", `/api/v1/videos/${entry.id}/embed`)).body.html as string;
  url = stage.serve("/quiz.html", html(snippet));
}, 180_000);

afterAll(() => stage?.stop());

test("a quiz choice swaps the player to the next video in place; its events carry the same session; the report counts the path", async () => {
  const context = await stage.browser.newContext();
  const p = await context.newPage();
  const errors = watchErrors(p);
  await p.goto(url);
  await p.click(".fl-big", { timeout: 15_000 });
  await p.waitForSelector(".fl-quiz[role=dialog]", { timeout: 15_000 });
  // Marks this document: a page load would lose it.
  await p.evaluate(() => Object.assign(window, { flSamePage: true }));
  const session = await p.evaluate(() => window.Frameline!.getSessionId());
  await p.locator(".fl-quiz-choice", { hasText: "Yes, show me the plan" }).click();

  // The same element now holds the next video's player, which plays to its end.
  await p.waitForSelector(`.frameline-player[data-video="${next.code}"][data-fl-mounted] video`, { timeout: 15_000 });
  await p.waitForFunction(() => document.querySelector("video")!.currentTime > 0.5, null, { timeout: 20_000 });
  await p.waitForFunction(() => document.querySelector("video")!.ended, null, { timeout: 30_000 });
  expect(await p.locator(".frameline-player").count()).toBe(1);
  expect(await p.locator(".fl-quiz").count()).toBe(0);
  expect(await p.evaluate(() => (window as unknown as { flSamePage?: boolean }).flSamePage)).toBe(true);
  expect(await p.evaluate(() => window.Frameline!.getSessionId())).toBe(session);
  expect(errors).toEqual([]);
  // Closing sends the last batch (the player's beacon at unload).
  await p.close({ runBeforeUnload: true });
  await context.close();

  // The step is the answer, carrying the next video; the next video's events carry the same session.
  type Row = { event_type: string; event: string | null; session_code: string | null; properties?: Record<string, string> };
  const rowsOf = async (v: Video) => (await stage.eventsRead(v)) as Row[];
  const answer = await until(async () => (await rowsOf(entry)).find((r) => r.event_type === "quiz_answered"), 20_000, 250);
  expect(answer!.event).toBe("q1:yes");
  expect(answer!.session_code).toBe(session);
  const played = await until(
    async () => {
      const rows = await rowsOf(next);
      return rows.some((r) => r.event_type === "play") && rows.some((r) => r.event_type === "ended") ? rows : undefined;
    },
    20_000,
    250,
  );
  expect(new Set(played!.map((r) => r.session_code))).toEqual(new Set([session]));

  // The report: one viewer on each step of the path, who played both and finished the second.
  const report = await until(
    async () => {
      const res = await stage.api("GET", `/api/v1/funnels/report?entry_video=${entry.id}`);
      return res.body.steps?.length === 2 && res.body.steps[1].completions === 1 ? res.body : undefined;
    },
    20_000,
    250,
  );
  expect(
    report.steps.map((s: Record<string, any>) => [s.parent_id, s.choice?.label ?? null, s.video.id, s.sessions, s.viewers, s.plays, s.completions]),
  ).toEqual([
    [null, null, entry.id, 1, 1, 1, 0],
    [0, "Yes, show me the plan", next.id, 1, 1, 1, 1],
  ]);
  expect(report.steps[1].choice.key).toBe("quiz:q1:yes");
}, 180_000);
