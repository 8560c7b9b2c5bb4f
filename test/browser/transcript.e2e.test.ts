/**
 * Search data and the transcript in real headless Chromium, after real deploys:
 * the real server encodes a clip made by ffmpeg, the caption files are served
 * by the customer site, and its page runs the embed snippet. Checks the
 * schema.org JSON-LD a search engine reads in the page head and the transcript
 * a viewer reads, clicks and tabs through under the player.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { page as html, until } from "../helpers/browser.ts";
import { clip } from "../helpers/media.ts";
import { type Stage, startStage, type Video, watchErrors } from "../helpers/stage.ts";

let stage: Stage;
let long: string;

const vtt = (cues: [string, string, string][]) => ["WEBVTT", "", ...cues.flatMap(([from, to, text]) => [`${from} --> ${to}`, text, ""])].join("\n");
const EN = vtt([
  ["00:00.000", "00:02.000", "Welcome"],
  ["00:02.500", "00:05.000", "The <b>plan</b>"],
  ["00:05.000", "00:08.000", "The end"],
]);
const DE = vtt([
  ["00:00.000", "00:02.000", "Willkommen"],
  ["00:02.500", "00:05.000", "Der Plan"],
  ["00:05.000", "00:08.000", "Das Ende"],
]);

async function deploy(video: Video, groups: Record<string, unknown>): Promise<void> {
  const res = await stage.api("POST", `/api/v1/videos/${video.id}/deploy`, groups);
  expect([res.status, res.body]).toEqual([200, expect.anything()]);
}
const snippet = async (video: Video) => (await stage.api("GET", `/api/v1/videos/${video.id}/embed`)).body.html as string;
const tracks = () => [
  { src: stage.serve("/captions/en.vtt", EN, "text/vtt"), srclang: "en", label: "English", default: true },
  { src: stage.serve("/captions/de.vtt", DE, "text/vtt"), srclang: "de", label: "Deutsch" },
];
const videoTime = (p: Page) => p.evaluate(() => document.querySelector("video")!.currentTime);
const jsonLd = (p: Page) =>
  p.evaluate(() => [...document.head.querySelectorAll('script[type="application/ld+json"]')].map((s) => JSON.parse(s.textContent || "null")));
const current = (p: Page) => p.locator(".fl-transcript li[aria-current=true]").textContent();

beforeAll(async () => {
  [stage, long] = await Promise.all([startStage("Transcript"), clip("long")]);
}, 180_000);

afterAll(() => stage?.stop());

describe("search data and transcript", () => {
  test("the page head carries the VideoObject with the transcript; the transcript panel lists the chosen language, highlights the current cue and seeks on click or Enter", async () => {
    const video = await stage.readyVideo("Product tour", long);
    await deploy(video, {
      captions_options: { enabled: true, tracks: tracks() },
      seo_options: { title: "Frameline product tour", description: "Eight seconds of the product.", transcript_enabled: true },
      transcript_options: { enabled: true, language: "de" },
    });
    const p = await stage.browser.newPage();
    const errors = watchErrors(p);
    await p.goto(stage.serve("/tour.html", html(await snippet(video))));

    // The transcript: the German track's cues as buttons in a labelled region.
    await p.waitForSelector(".fl-transcript li", { timeout: 15_000 });
    expect(await p.locator("section.fl-transcript[aria-label=Transcript]").count()).toBe(1);
    expect(await p.locator(".fl-transcript li").allTextContents()).toEqual(["0:00Willkommen", "0:02Der Plan", "0:05Das Ende"]);
    expect(await p.locator(".fl-transcript button.fl-cue").count()).toBe(3);
    expect(await p.locator(".fl-transcript [aria-current]").count()).toBe(0);

    // The search data: one VideoObject, the transcript from the default (English) track.
    await until(async () => (await jsonLd(p))[0]?.transcript !== undefined, 10_000);
    const [ld, ...more] = await jsonLd(p);
    expect(more).toEqual([]);
    expect(ld).toMatchObject({
      "@context": "https://schema.org",
      "@type": "VideoObject",
      name: "Frameline product tour",
      description: "Eight seconds of the product.",
      transcript: "Welcome The plan The end",
    });
    expect(ld.thumbnailUrl).toMatch(/^https?:\/\/.+/);
    expect(ld.embedUrl).toMatch(/\.m3u8(\?|$)/);
    expect(ld.contentUrl).toBe(ld.embedUrl);
    expect(Date.now() - Date.parse(ld.uploadDate)).toBeLessThan(10 * 60_000);
    // Both answer: the video's stream and its poster.
    expect((await (await fetch(ld.embedUrl)).text()).startsWith("#EXTM3U")).toBe(true);
    expect((await fetch(ld.thumbnailUrl)).headers.get("content-type")).toStartWith("image/");

    // Playback passes the cues: the one playing is highlighted; the duration joins the search data.
    await p.click(".fl-big");
    await until(async () => (await current(p)) === "0:00Willkommen", 10_000);
    await until(async () => (await current(p)) === "0:02Der Plan", 10_000);
    await until(async () => /^PT[78]S$/.test((await jsonLd(p))[0]?.duration ?? ""), 10_000);
    // A click on a cue seeks there.
    await p.locator(".fl-transcript .fl-cue").first().click();
    await until(async () => (await videoTime(p)) < 2, 5_000);
    await until(async () => (await current(p)) === "0:00Willkommen", 5_000);
    // So does Enter on a focused cue.
    await p.locator(".fl-transcript .fl-cue").nth(2).focus();
    await p.keyboard.press("Enter");
    await until(async () => (await videoTime(p)) >= 5, 5_000);
    await until(async () => (await current(p)) === "0:05Das Ende", 5_000);
    expect(errors).toEqual([]);
    await p.close();
  }, 180_000);

  test("with both groups off (and captions on) neither the search data nor the transcript appears", async () => {
    const video = await stage.readyVideo("Plain tour", long);
    await deploy(video, {
      captions_options: { enabled: true, tracks: tracks() },
      seo_options: { title: null, description: "", transcript_enabled: false },
      transcript_options: { enabled: false, language: "de" },
    });
    const p = await stage.browser.newPage();
    const errors = watchErrors(p);
    await p.goto(stage.serve("/plain.html", html(await snippet(video))));
    await p.waitForSelector(".fl-big", { timeout: 15_000 });
    await p.click(".fl-big");
    await p.waitForFunction(() => document.querySelector("video")!.currentTime > 1, null, { timeout: 15_000 });
    expect(await p.locator("track").count()).toBe(2);
    expect(await jsonLd(p)).toEqual([]);
    expect(await p.locator(".fl-transcript").count()).toBe(0);
    expect(errors).toEqual([]);
    await p.close();
  }, 180_000);
});
