/**
 * Features turned on together, in real headless Chromium after real deploys: the real
 * server (`bun server/main.ts`, embedded engines) encodes clips made by ffmpeg, the
 * groups are deployed through the application API (and the operator route for the
 * five it keeps), and a customer page on another origin runs the embed snippet.
 *
 * - One overlay at a time (player/README.md "Overlays"): with every overlay feature on,
 *   a sampler in the page records, on every change of the player's DOM and every frame,
 *   which overlays a viewer can see; never two.
 * - Features agree on time: pixels count milestones crossed in watched time (a seek
 *   crosses nothing); the cloak, a timed action, the pitch and the watch gate read a
 *   resumed position, not 0.
 * - Lead forms at the moment the seller chose (a pause, leaving), smart pause, turbo.
 *
 * Headless Chromium has no window edge to cross nor a tab to hide: the tests send the
 * events a browser fires then (mouseout without a related target; visibilitychange with
 * the document hidden).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { page as html, pageRecorders, playedPast, tempDir, until } from "../helpers/browser.ts";
import { clip } from "../helpers/media.ts";
import { type Stage, startStage, type Video, watchErrors } from "../helpers/stage.ts";

let stage: Stage;
let browser: Browser;
let clipPath: string;
let hdClip: string;

const api: Stage["api"] = (...args) => stage.api(...args);

/** Deploys through the application API, or the operator route for the groups it drops; answers the live embed snippet. */
async function deploy(video: Video, groups: Record<string, unknown>, via: "api" | "operator" = "api"): Promise<string> {
  const res =
    via === "api"
      ? await api("POST", `/api/v1/videos/${video.id}/deploy`, groups)
      : await stage.admin("POST", `/workspaces/${stage.ws.id}/videos/${video.id}/deploy`, groups);
  expect([res.status, res.body]).toEqual([200, expect.anything()]);
  return (await api("GET", `/api/v1/videos/${video.id}/embed`)).body.html as string;
}

/** Every overlay a viewer could see over the video (the features', the resume prompt, the error overlay). */
const OVERLAYS = ".fl-err,.fl-lead,.fl-quiz,.fl-end,.fl-exit,.fl-prompt,.fl-unmute,.fl-headline,.fl-thumb,.fl-cta,.fl-acta,.fl-next";

/**
 * Records, on every mutation of the page and every animation frame, the overlays a viewer
 * can see (in the page, laid out, not display:none or hidden): `__seen` every set seen,
 * `__twice` the moments two or more were.
 */
const SAMPLER = `
window.__seen = []; window.__twice = [];
const SEL = ${JSON.stringify(OVERLAYS)};
const sample = () => {
  const shown = [...document.querySelectorAll(SEL)].filter((e) => {
    const r = e.getBoundingClientRect(), s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.display !== "none" && s.visibility !== "hidden" && s.opacity !== "0";
  }).map((e) => e.className.split(" ")[0]);
  const key = shown.join("+");
  if (window.__seen[window.__seen.length - 1] !== key) window.__seen.push(key);
  if (shown.length > 1) window.__twice.push({ at: performance.now(), shown, time: document.querySelector("video")?.currentTime });
};
new MutationObserver(sample).observe(document, { subtree: true, childList: true, attributes: true });
const frame = () => { sample(); requestAnimationFrame(frame); };
requestAnimationFrame(frame);
`;

/** Records the ad pixels' calls and the page API's events. */
const RECORDERS = pageRecorders(["ready", "play", "pause", "timed_event", "lead", "quiz_answer", "cta_click"]);

const serveSite = (name: string, snippet: string) => stage.serve(`/${name}.html`, html(`${snippet}<div style="height:1600px"></div>`, RECORDERS));

const heard = (p: Page, name: string) => p.evaluate((n) => (window as any).__page.filter((e: any) => e.name === n), name);
const videoTime = (p: Page) => p.evaluate(() => document.querySelector("video")!.currentTime);
const paused = (p: Page) => p.evaluate(() => document.querySelector("video")!.paused);
/** The overlays a viewer can see now, by their first class. */
const visible = (p: Page) =>
  p.evaluate((sel) => {
    return [...document.querySelectorAll<HTMLElement>(sel)]
      .filter((e) => e.getBoundingClientRect().width > 0 && getComputedStyle(e).display !== "none")
      .map((e) => e.className.split(" ")[0]);
  }, OVERLAYS);
const twice = (p: Page) => p.evaluate(() => (window as any).__twice as unknown[]);
const seen = (p: Page) => p.evaluate(() => (window as any).__seen as string[]);

/** What a browser fires when the pointer leaves the window through its top edge. */
const leavePage = (p: Page) =>
  p.evaluate(() => document.dispatchEvent(new MouseEvent("mouseout", { clientX: 300, clientY: -1, relatedTarget: null, bubbles: true })));

/** What a browser fires when the tab is hidden, or shown again. */
const setHidden = (p: Page, hidden: boolean) =>
  p.evaluate((h) => {
    Object.defineProperty(document, "hidden", { value: h, configurable: true });
    Object.defineProperty(document, "visibilityState", { value: h ? "hidden" : "visible", configurable: true });
    document.dispatchEvent(new Event("visibilitychange"));
  }, hidden);

async function viewer(url: string, init?: string): Promise<{ context: BrowserContext; p: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  const p = await context.newPage();
  await p.addInitScript(SAMPLER);
  if (init) await p.addInitScript(init);
  const errors = watchErrors(p);
  await p.goto(url);
  await p.waitForSelector(".fl-root video");
  return { context, p, errors };
}

/** A viewer of `url` who pressed play and has watched past `seconds`. */
async function playingViewer(url: string, seconds: number): ReturnType<typeof viewer> {
  const watching = await viewer(url);
  await watching.p.click(".fl-big");
  await playedPast(watching.p, seconds, 15_000);
  return watching;
}

beforeAll(async () => {
  const dir = tempDir("fl-together-clips-");
  hdClip = join(dir, "hd-8s.mp4");
  // 8 s of H.264 at 1280x720: the encoder keeps it as the 720p rung and encodes a 360p one (two renditions).
  const ffmpeg = Bun.spawn(
    [
      "ffmpeg",
      ...`-v error -y -f lavfi -i testsrc=size=1280x720:rate=25:duration=8 -f lavfi -i sine=duration=8 -c:v libx264 -preset ultrafast -pix_fmt yuv420p -g 50 -c:a aac -shortest`.split(
        " ",
      ),
      hdClip,
    ],
    { stderr: "inherit" },
  );
  const [started, long] = await Promise.all([startStage("Together"), clip("long"), ffmpeg.exited]);
  stage = started;
  browser = stage.browser;
  clipPath = long;
}, 180_000);

afterAll(() => stage?.stop());

describe("one overlay at a time", () => {
  test("every overlay feature on: the unmute prompt, a CTA card, the lead form with a question due, exit intent then the end, an error, the resume prompt", async () => {
    const video = await stage.readyVideo("Everything on", clipPath);
    await deploy(video, {
      autoplay_options: { enabled: true, muted: true, unmute_prompt: true, unmute_prompt_text: "Tap for sound" },
      thumbnail_options: { enabled: true, mode: "poster", show_play_overlay: true, overlay_text: "Click to watch" },
      cta_cards_options: { enabled: true, cards: [{ time_s: 0.5, text: "Get it now", button_text: "Buy", url: "https://example.com/buy" }] },
      lead_form_options: { enabled: true, time_s: 2, fields: ["email"], title: "Get the free guide", skippable: true },
      quiz_options: {
        enabled: true,
        questions: [
          {
            id: "q1",
            time_s: 2,
            question: "Which plan fits a team?",
            choices: [
              { id: "solo", text: "Solo" },
              { id: "team", text: "Team" },
            ],
          },
        ],
      },
      watch_gate_options: { enabled: true, gate_time_s: 3, message: "Enter your email to see the rest" },
      exit_intent_options: { enabled: true, message: "Wait! Take 20% off", button_text: "Claim", button_url: "https://example.com/discount" },
      end_screen_options: { enabled: true, mode: "text", text: "Thanks for watching", button_text: "Buy the course", button_url: "https://example.com/course" },
      continue_watching_options: { enabled: true, min_seconds: 2 },
      // hls.js fetches the stream, so the broken one below is a route of the page.
      playback_options: { hls_engine: "hlsjs" },
    });
    const snippet = await deploy(video, { headline_options: { enabled: true, text: "Watch this first" } }, "operator");
    const url = serveSite("everything", snippet);
    const { context, p, errors } = await viewer(url);

    // The muted autoplay: its unmute prompt outranks the CTA card, the headline and the thumbnail text.
    await p.waitForSelector(".fl-unmute");
    expect(await visible(p)).toEqual(["fl-unmute"]);
    await p.click(".fl-unmute");
    await until(async () => (await visible(p)).join() === "fl-cta", 10_000);
    expect(await p.locator(".fl-headline").count()).toBe(0);

    // At 2 s the lead form and a question are due together: the form has the stage and focus, the question waits, the card hides.
    await p.waitForSelector(".fl-lead:not(.fl-wait)", { timeout: 15_000 });
    await until(async () => (await p.locator(".fl-quiz").count()) === 1, 5_000);
    expect(await visible(p)).toEqual(["fl-lead"]);
    expect(await p.locator(".fl-quiz").getAttribute("class")).toContain("fl-wait");
    expect(await p.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("email");
    expect(await paused(p)).toBe(true);
    await p.fill(".fl-lead-email input", `ann-${crypto.randomUUID().slice(0, 8)}@example.com`);
    await p.click(".fl-lead-submit");
    // The question comes back, focused and announced; playback stays held for it.
    await until(async () => (await visible(p)).join() === "fl-quiz", 5_000);
    expect(await p.evaluate(() => document.activeElement?.textContent)).toBe("Solo");
    await until(async () => (await p.locator(".fl-sr").textContent()) === "Which plan fits a team?", 3_000);
    await Bun.sleep(500);
    expect(await paused(p)).toBe(true);
    await p.locator(".fl-quiz-choice", { hasText: "Team" }).click();
    // Playing again (the gate at 3 s is open: the lead form answered it), and the card is back.
    await playedPast(p, 3.5, 15_000);
    expect(await visible(p)).toEqual(["fl-cta"]);

    // Exit intent, then the end while it is open: the end screen waits until it is closed.
    await leavePage(p);
    await until(async () => (await visible(p)).join() === "fl-exit", 5_000);
    expect(await p.evaluate(() => !!document.activeElement?.closest(".fl-exit"))).toBe(true);
    await p.waitForFunction(() => document.querySelector("video")!.ended, null, { timeout: 20_000 });
    await until(async () => (await p.locator(".fl-end").count()) === 1, 5_000);
    expect(await visible(p)).toEqual(["fl-exit"]);
    await p.click(".fl-exit button");
    await until(async () => (await visible(p)).join() === "fl-end", 5_000);
    expect(await p.locator(".fl-end p").textContent()).toBe("Thanks for watching");

    expect(await twice(p)).toEqual([]);
    expect((await seen(p)).filter((s) => s)).toEqual(["fl-unmute", "fl-cta", "fl-lead", "fl-quiz", "fl-cta", "fl-exit", "fl-end"]);
    expect(errors).toEqual([]);
    await context.close();

    // A broken stream: the error overlay outranks everything, alone.
    const broken = await browser.newContext();
    const q = await broken.newPage();
    await q.addInitScript(SAMPLER);
    await q.route("**/*.m3u8", (route) => route.fulfill({ status: 404, body: "gone" }));
    await q.goto(url);
    await q.waitForSelector(".fl-err[role=alert]", { timeout: 15_000 });
    await until(async () => (await visible(q)).join() === "fl-err", 5_000);
    expect(await twice(q)).toEqual([]);
    await broken.close();

    // The same, without the autoplay (whose start would drop the resume prompt): a returning viewer gets the prompt
    // alone, the headline and thumbnail text behind it; resumed past the gate, playback is held at the gate, not at 0.
    await deploy(video, { autoplay_options: { enabled: false } });
    const back = await viewer(url, `localStorage.setItem("fl_pos:${video.code}", "5")`);
    await back.p.waitForSelector(".fl-prompt");
    expect(await visible(back.p)).toEqual(["fl-prompt"]);
    await back.p.click(".fl-prompt >> text=Resume");
    await back.p.waitForSelector(".fl-lead:not(.fl-wait)", { timeout: 15_000 });
    await Bun.sleep(500);
    expect(await videoTime(back.p)).toBeGreaterThan(2.8);
    expect(await videoTime(back.p)).toBeLessThan(3.4);
    expect(await visible(back.p)).toEqual(["fl-lead"]);
    expect(await twice(back.p)).toEqual([]);
    expect((await seen(back.p)).filter((x) => x)[0]).toBe("fl-prompt");
    expect(back.errors).toEqual([]);
    await back.context.close();
  }, 240_000);
});

describe("features agree on time", () => {
  test("resume with the headline and the thumbnail text: the prompt alone; then the cloak, a timed action, the pitch and the gate read the resumed position", async () => {
    const video = await stage.readyVideo("Resumed letter", clipPath);
    await deploy(video, {
      thumbnail_options: { enabled: true, mode: "poster", show_play_overlay: true, overlay_text: "Click to watch" },
      continue_watching_options: { enabled: true, min_seconds: 2, prompt_text: "Pick up where you left off?" },
      watch_gate_options: { enabled: true, gate_time_s: 6.5, message: "Enter your email to see the end" },
    });
    const snippet = await deploy(
      video,
      {
        headline_options: { enabled: true, text: "The one video to watch" },
        cloak_options: { enabled: true },
        pitch_time_options: { enabled: true, time_s: 4.5, persist: false },
        actions_options: {
          enabled: true,
          actions: [{ trigger: "time", time_s: 4, type: "cta", text: "Only today", button_text: "Claim", url: "https://example.com/claim" }],
        },
      },
      "operator",
    );
    const url = serveSite("resumed", snippet);
    // A returning viewer who stopped at 5 s on this device.
    const { context, p, errors } = await viewer(url, `localStorage.setItem("fl_pos:${video.code}", "5")`);
    await p.waitForSelector(".fl-prompt");
    await p.evaluate(() => {
      const v = document.querySelector("video")!;
      new MutationObserver(() => document.querySelector(".fl-acta") && ((window as any).__actaAt ??= v.currentTime)).observe(document.body, {
        childList: true,
        subtree: true,
      });
    });
    expect(await visible(p)).toEqual(["fl-prompt"]);
    expect(await p.locator(".fl-headline").getAttribute("class")).toContain("fl-wait");
    expect(await p.locator(".fl-thumb").getAttribute("class")).toContain("fl-wait");
    await until(async () => (await p.locator(".fl-sr").textContent()) === "Pick up where you left off?", 3_000);

    await p.click(".fl-prompt >> text=Resume");
    await p.waitForFunction(() => !document.querySelector("video")!.paused, null, { timeout: 15_000 });
    // Still past 5 s a second later: the cloak took the resumed start for watched.
    await Bun.sleep(1200);
    expect(await videoTime(p)).toBeGreaterThan(5.5);
    // The 4 s action and the 4.5 s pitch were reached at the resumed position, not replayed from 0.
    expect(await p.evaluate(() => (window as any).__actaAt)).toBeGreaterThanOrEqual(4.9);
    const pitch = (await heard(p, "timed_event")).filter((e: any) => e.data.name === "pitch");
    expect(pitch).toHaveLength(1);
    expect(pitch[0].time).toBeGreaterThanOrEqual(4.9);
    // The gate at 6.5 s holds playback there.
    await p.waitForSelector(".fl-lead .fl-lead-msg", { timeout: 15_000 });
    const held = await videoTime(p);
    expect(held).toBeGreaterThan(6.2);
    expect(held).toBeLessThan(6.9);
    await Bun.sleep(800);
    expect(Math.abs((await videoTime(p)) - held)).toBeLessThan(0.4);
    expect(await visible(p)).toEqual(["fl-lead"]);
    expect(await twice(p)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  test("ad pixels count milestones crossed in watched time: a click on the progress bar at 90 % sends no 50 or 75 %", async () => {
    const video = await stage.readyVideo("Pixel letter", clipPath);
    const url = serveSite("pixels", await deploy(video, { pixels_options: { enabled: true } }));
    const { context, p, errors } = await playingViewer(url, 2.6);
    await p.evaluate(() => document.querySelector("video")!.pause());
    // A click on the progress bar at 90 %.
    await p.locator(".fl-root").hover();
    const track = (await p.locator(".fl-track").boundingBox())!;
    await p.mouse.click(track.x + track.width * 0.9, track.y + track.height / 2);
    await until(async () => (await videoTime(p)) > 7, 5_000);
    await p.evaluate(() => window.Frameline!.player().play());
    await p.waitForFunction(() => document.querySelector("video")!.ended, null, { timeout: 15_000 });
    const progress = (await p.evaluate(() => (window as any).__pixels as unknown[][]))
      .filter((c) => c[0] === "fbq" && c[2] === "VideoProgress")
      .map((c) => (c[3] as { percent: number }).percent);
    expect(progress).toEqual([25, 100]);
    const gtag = (await p.evaluate(() => (window as any).__pixels as unknown[][])).filter((c) => c[0] === "gtag").map((c) => c[2]);
    expect(gtag).toEqual(["video_start", "video_progress", "video_complete"]);
    expect(errors).toEqual([]);
    await context.close();
    // Frameline's own events agree: the seek, and two milestones, 25 and 100 (the webhooks say which).
    await until(async () => (await stage.eventsRead(video)).some((r) => r.event_type === "ended"), 20_000);
    const rows = await stage.eventsRead(video);
    expect(rows.filter((r) => r.event_type === "seek")).toHaveLength(1);
    expect(rows.filter((r) => r.event_type === "milestone")).toHaveLength(2);
    const milestones = () =>
      stage.receiver.requests
        .map((r) => r.json)
        .filter((d) => d?.event === "play.milestone" && d?.data?.video?.id === video.id)
        .map((d) => d.data.percent as number);
    await until(() => milestones().length === 2, 20_000);
    expect(milestones().sort((a, b) => a - b)).toEqual([25, 100]);
  }, 120_000);
});

describe("lead forms at the moment a seller chooses, and smart pause", () => {
  test('trigger "pause": the first pause the viewer asks for after time_s, not the player\'s own; playback stays paused', async () => {
    const video = await stage.readyVideo("Pause form", clipPath);
    await deploy(video, { lead_form_options: { enabled: true, trigger: "pause", time_s: 1, title: "Before you go: the guide" } });
    const url = serveSite(
      "pause-form",
      await deploy(video, { actions_options: { enabled: true, actions: [{ trigger: "time", time_s: 2, type: "pause" }] } }, "operator"),
    );
    const { context, p, errors } = await playingViewer(url, 0.3);
    // Before time_s: a pause asks nothing.
    await p.focus(".fl-root");
    await p.keyboard.press("k");
    await Bun.sleep(400);
    expect(await p.locator(".fl-lead").count()).toBe(0);
    await p.keyboard.press("k");
    // The pause action at 2 s is the player's own: nothing either.
    await p.waitForFunction(() => document.querySelector("video")!.paused && document.querySelector("video")!.currentTime > 1.9, null, { timeout: 15_000 });
    await Bun.sleep(400);
    expect(await p.locator(".fl-lead").count()).toBe(0);
    await p.keyboard.press("k");
    await playedPast(p, 2.6, 10_000);
    // The viewer's pause after time_s: the form, and playback stays paused after a skip.
    await p.keyboard.press("k");
    await p.waitForSelector(".fl-lead", { timeout: 5_000 });
    expect(await p.locator(".fl-lead-title").textContent()).toBe("Before you go: the guide");
    await p.click(".fl-lead-skip");
    await Bun.sleep(600);
    expect(await paused(p)).toBe(true);
    expect(await p.locator(".fl-lead").count()).toBe(0);
    // Asked once.
    await p.keyboard.press("k");
    await playedPast(p, 3.5, 10_000);
    await p.keyboard.press("k");
    await Bun.sleep(400);
    expect(await p.locator(".fl-lead").count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  test('trigger "exit": the pointer leaving the page, or the tab hidden, after time_s; playback goes on after the answer', async () => {
    const video = await stage.readyVideo("Exit form", clipPath);
    const url = serveSite(
      "exit-form",
      await deploy(video, { lead_form_options: { enabled: true, trigger: "exit", time_s: 1, title: "Leaving? Get the guide", skippable: true } }),
    );
    const { context, p, errors } = await playingViewer(url, 0.3);
    await leavePage(p);
    await Bun.sleep(400);
    expect(await p.locator(".fl-lead").count()).toBe(0);
    await playedPast(p, 1.3, 10_000);
    await leavePage(p);
    await p.waitForSelector(".fl-lead", { timeout: 5_000 });
    expect(await paused(p)).toBe(true);
    await p.fill(".fl-lead-email input", `leaving-${crypto.randomUUID().slice(0, 8)}@example.com`);
    await p.click(".fl-lead-submit");
    await p.waitForFunction(() => !document.querySelector("video")!.paused, null, { timeout: 5_000 });
    expect(await heard(p, "lead")).toHaveLength(1);
    await context.close();

    // Another viewer hides the tab after time_s: the form is there when they come back, playback held.
    const other = await viewer(url);
    await other.p.click(".fl-big");
    await playedPast(other.p, 1.3, 15_000);
    await setHidden(other.p, true);
    await other.p.waitForSelector(".fl-lead", { timeout: 5_000 });
    expect(await paused(other.p)).toBe(true);
    await setHidden(other.p, false);
    await other.p.click(".fl-lead-skip");
    await other.p.waitForFunction(() => !document.querySelector("video")!.paused, null, { timeout: 5_000 });
    expect([...errors, ...other.errors]).toEqual([]);
    await other.context.close();
  }, 120_000);

  test("smart pause: a hidden tab pauses playback and the return resumes it; with resume_when_visible off it stays paused; a viewer's own pause stands", async () => {
    const video = await stage.readyVideo("Smart pause", clipPath);
    const url = serveSite("smart", await deploy(video, { playback_options: { pause_when_hidden: true } }));
    const { context, p, errors } = await playingViewer(url, 0.5);
    await setHidden(p, true);
    await p.waitForFunction(() => document.querySelector("video")!.paused, null, { timeout: 5_000 });
    const at = await videoTime(p);
    await Bun.sleep(500);
    expect(await videoTime(p)).toBeCloseTo(at, 1);
    await setHidden(p, false);
    await playedPast(p, at + 0.3, 5_000);
    // Paused by the viewer before hiding: the return leaves it paused.
    await p.evaluate(() => window.Frameline!.player().pause());
    await setHidden(p, true);
    await setHidden(p, false);
    await Bun.sleep(500);
    expect(await paused(p)).toBe(true);
    await context.close();

    const still = serveSite("smart-still", await deploy(video, { playback_options: { pause_when_hidden: true, resume_when_visible: false } }));
    const other = await viewer(still);
    await other.p.click(".fl-big");
    await playedPast(other.p, 0.5, 15_000);
    await setHidden(other.p, true);
    await other.p.waitForFunction(() => document.querySelector("video")!.paused, null, { timeout: 5_000 });
    await setHidden(other.p, false);
    await Bun.sleep(500);
    expect(await paused(other.p)).toBe(true);
    expect([...errors, ...other.errors]).toEqual([]);
    await other.context.close();
  }, 120_000);
});

describe("turbo", () => {
  test("the first segment from the lowest rendition on hls.js and native HLS alike, preload_segments before play, then up the ladder", async () => {
    const video = await stage.readyVideo("Turbo", hdClip);
    const status = await api("GET", `/api/v1/videos/${video.id}`);
    expect(status.body.video.landscape_hls).toContain("master");
    for (const engine of ["hlsjs", "native"] as const) {
      const url = serveSite(
        `turbo-${engine}`,
        await deploy(video, { turbo_options: { enabled: true, preload_segments: 1 }, playback_options: { hls_engine: engine, preload: "metadata" } }),
      );
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const p = await context.newPage();
      const errors = watchErrors(p);
      const segments: string[] = [];
      p.on("request", (r) => r.url().endsWith(".ts") && segments.push(new URL(r.url()).pathname.split("/").slice(-2).join("/")));
      await p.goto(url);
      await p.waitForSelector(".fl-big");
      if (engine === "hlsjs") {
        // While the page is idle: one segment, of the 360p rendition, and no more.
        await until(() => segments.length > 0, 10_000);
        await Bun.sleep(1500);
        expect(segments).toEqual(["360p/seg_000.ts"]);
      }
      await p.click(".fl-big");
      await p.waitForFunction(() => document.querySelector("video")!.currentTime > 0.3, null, { timeout: 15_000 });
      expect(segments[0]).toStartWith("360p/");
      // Up the ladder once playing: a 720p segment, and the 720p picture.
      await until(() => segments.some((s) => s.startsWith("720p/")), 15_000);
      await p.waitForFunction(() => document.querySelector("video")!.videoHeight === 720, null, { timeout: 15_000 });
      expect([engine, errors]).toEqual([engine, []]);
      await context.close();
    }
  }, 180_000);
});
