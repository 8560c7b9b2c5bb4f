/**
 * Who watched what, in real headless Chromium after a real deploy (docs/api.md
 * "Viewers"): the real server encodes a 16 s clip made by ffmpeg, a lead form is
 * deployed, and a customer page on another origin runs the embed snippet. Ann leaves
 * her email, watches 0-5 s twice, skips to 10 s and watches to the end; on a second
 * visit from another browser she leaves the same email and watches 0-4 s; someone
 * else skips the form and watches a little. The viewers list, Ann's timeline and her
 * heatmap say exactly that; once Ann is erased, no read shows her.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { page as html, until } from "../helpers/browser.ts";
import { clip } from "../helpers/media.ts";
import { type Stage, startStage, type Video, watchErrors } from "../helpers/stage.ts";

let stage: Stage;
let browser: Browser;
let video: Video;
let url: string;
const email = `ann-${crypto.randomUUID().slice(0, 8)}@example.com`;
const api: Stage["api"] = (...args) => stage.api(...args);

beforeAll(async () => {
  stage = await startStage("Viewers", ["videos:read", "videos:write", "analytics:read", "webhooks:write", "events:write"]);
  browser = stage.browser;
  video = await stage.readyVideo("The VSL", await clip("vsl"));
  const deployed = await api("POST", `/api/v1/videos/${video.id}/deploy`, {
    lead_form_options: { enabled: true, time_s: 0, fields: ["email"], title: "Get the guide", skippable: true },
  });
  expect(deployed.status).toBe(200);
  const snippet = (await api("GET", `/api/v1/videos/${video.id}/embed`)).body.html as string;
  url = stage.serve("/offer.html", html(snippet));
}, 180_000);

afterAll(() => stage?.stop());

const time = (p: Page) => p.evaluate(() => document.querySelector("video")!.currentTime);
const reached = (p: Page, seconds: number) => p.waitForFunction((s) => document.querySelector("video")!.currentTime >= s, seconds, { timeout: 20_000 });
const seek = (p: Page, seconds: number) => p.evaluate((s) => window.Frameline!.player().seek(s), seconds);

/** A visit: the page opens, the viewer starts the video and meets the lead form. */
async function visit(): Promise<{ p: Page; errors: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext();
  const p = await context.newPage();
  const errors = watchErrors(p);
  await p.goto(url);
  await p.click(".fl-big", { timeout: 15_000 });
  await p.waitForSelector(".fl-lead:not(.fl-wait)", { timeout: 15_000 });
  return {
    p,
    errors,
    // Closing sends the last batch (the player's beacon at unload).
    close: async () => {
      await p.close({ runBeforeUnload: true });
      await context.close();
    },
  };
}

async function leaveEmail(p: Page): Promise<void> {
  await p.fill(".fl-lead-email input", email);
  await p.click(".fl-lead-submit");
  expect(await p.locator(".fl-lead").count()).toBe(0);
}

/** Within half a second either way: where a viewer stopped is read while the video plays. */
const near = (got: number[][], want: number[][]) => {
  expect(got.length).toBe(want.length);
  got.forEach((range, i) => range.forEach((s, j) => expect(Math.abs(s - want[i]![j]!)).toBeLessThan(0.5)));
};

test("the viewers list, a viewer's timeline and heatmap say who watched which seconds, across visits and browsers", async () => {
  // Ann's first visit.
  const first = await visit();
  await leaveEmail(first.p);
  await reached(first.p, 5);
  await seek(first.p, 0);
  await until(async () => (await time(first.p)) < 1, 5_000);
  await reached(first.p, 5);
  await seek(first.p, 10);
  await first.p.waitForFunction(() => document.querySelector("video")!.ended, null, { timeout: 20_000 });
  const errors = [...first.errors];
  await first.close();

  // Ann again, from another browser: the same email, then 0-4 s.
  const second = await visit();
  await leaveEmail(second.p);
  await reached(second.p, 4);
  await second.p.evaluate(() => window.Frameline!.player().pause());
  errors.push(...second.errors);
  await second.close();

  // Someone who does not say who they are.
  const anon = await visit();
  await anon.p.click(".fl-lead-skip");
  await reached(anon.p, 2);
  await anon.p.evaluate(() => window.Frameline!.player().pause());
  errors.push(...anon.errors);
  await anon.close();
  expect(errors).toEqual([]);

  // The viewers list: the anonymous viewer (seen last) first, without identity; then Ann, both visits.
  const list = await until(
    async () => {
      const res = await api("GET", `/api/v1/videos/${video.id}/viewers`);
      const ann = res.body.data?.find((v: { email: string | null }) => v.email === email);
      return res.body.total === 2 && ann?.sessions === 2 && ann.furthest_percent === 100 && res.body.data[0].watch_time_s >= 2 ? res.body : undefined;
    },
    20_000,
    250,
  );
  const [someone, ann] = list.data;
  expect(someone).toMatchObject({ identified: false, email: null, external_id: null, sessions: 1, leads: 0, orders: 0 });
  expect(ann).toMatchObject({ identified: true, email, sessions: 2, furthest_percent: 100, leads: 2, orders: 0, revenue: [] });
  expect(ann.plays).toBeGreaterThanOrEqual(2);
  // Watched 5 + 5 + 6 + 4 seconds.
  expect(Math.abs(ann.watch_time_s - 20)).toBeLessThan(1.5);
  expect((await api("GET", `/api/v1/videos/${video.id}/viewers?identified=true`)).body.data.map((v: { email: string }) => v.email)).toEqual([email]);

  // Her timeline: the two visits, oldest first, with what she watched and did.
  const timeline = (await api("GET", `/api/v1/videos/${video.id}/viewers/${ann.viewer_id}`)).body;
  expect(timeline.viewer).toEqual(ann);
  const [one, two] = timeline.sessions;
  expect(timeline.sessions).toHaveLength(2);
  expect(one.session_id).not.toBe(two.session_id);
  near(one.watched_ranges, [
    [0, 5],
    [0, 5],
    [10, 16],
  ]);
  near(two.watched_ranges, [[0, 4]]);
  expect(one).toMatchObject({ browser: "Chrome", source: null });
  const kinds = (s: { events: { type: string }[] }) => s.events.map((e) => e.type).filter((k) => k !== "play" && k !== "pause");
  expect(kinds(one)).toEqual(["lead", "seek", "seek", "ended"]);
  expect(one.events.filter((e: { type: string }) => e.type === "seek").map((e: { video_time: number }) => e.video_time)).toEqual([0, 10]);
  expect(kinds(two)).toEqual(["lead"]);
  expect(two.events.at(-1).type).toBe("pause");

  // Her heatmap, one part a second: 0-4 s three times, 4-5 s twice, 5-10 s skipped, 10-16 s once.
  const heatmap = (await api("GET", `/api/v1/videos/${video.id}/viewers/${ann.viewer_id}/heatmap?buckets=16`)).body;
  expect(Math.abs(heatmap.duration_s - 16)).toBeLessThan(0.5);
  expect(heatmap.counts).toEqual([3, 3, 3, 3, 2, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]);

  // The anonymous viewer's own heatmap: the first two seconds, once.
  const theirs = (await api("GET", `/api/v1/videos/${video.id}/viewers/${someone.viewer_id}/heatmap?buckets=8`)).body;
  expect(theirs.counts).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);

  // The seller opens the video's leads in the dashboard, then Ann's page: her heatmap strip and her two visits.
  const dash = await browser.newPage();
  const dashErrors = watchErrors(dash);
  await dash.goto(`${stage.base}/dashboard`);
  await dash.getByLabel("Admin key").fill(stage.adminKey);
  await dash.getByRole("button", { name: "Sign in" }).click();
  await dash.getByRole("button", { name: /^Viewers/ }).click();
  await dash.getByRole("navigation", { name: "Main" }).waitFor();
  await dash.goto(`${stage.base}/dashboard/videos/${video.id}/viewers`);
  await dash.getByRole("table", { name: "Viewers" }).waitFor();
  expect(await dash.locator("[data-viewer-row]").count()).toBe(2);
  await dash.getByLabel(/Leads only/).check();
  await dash.getByRole("table", { name: "Leads" }).waitFor();
  await until(async () => (await dash.locator("[data-viewer-row]").count()) === 1, 10_000);
  await dash.getByRole("link", { name: email }).click();
  await dash.getByRole("heading", { name: email }).waitFor();
  await dash.locator(".heatmap-strip span").first().waitFor();
  const strip = await dash
    .locator(".heatmap-strip span")
    .evaluateAll((cells) => cells.map((c) => [Number(c.getAttribute("data-count")), Number(getComputedStyle(c).opacity)]));
  const wide = (await api("GET", `/api/v1/videos/${video.id}/viewers/${ann.viewer_id}/heatmap?buckets=100`)).body.counts as number[];
  expect(strip.map(([count]) => count)).toEqual(wide);
  // Darker where rewatched, blank where skipped.
  const opacity = (count: number) => strip.find(([c]) => c === count)![1];
  expect(opacity(3)).toBeGreaterThan(opacity(1));
  expect(opacity(0)).toBe(0);
  expect(await dash.locator("[data-session]").count()).toBe(2);
  expect(await dash.locator("[data-session]").first().textContent()).toContain("Left their email");
  expect(dashErrors).toEqual([]);
  await dash.close();

  // Ann asks to be forgotten.
  expect((await api("DELETE", `/api/v1/viewers/${ann.viewer_id}`)).body).toEqual({ deleted: true });
  const after = (await api("GET", `/api/v1/videos/${video.id}/viewers`)).body;
  expect([after.total, after.data.map((v: { viewer_id: number }) => v.viewer_id)]).toEqual([1, [someone.viewer_id]]);
  expect((await api("GET", `/api/v1/videos/${video.id}/viewers/${ann.viewer_id}`)).status).toBe(404);
  expect((await api("GET", `/api/v1/videos/${video.id}/viewers/${ann.viewer_id}/heatmap`)).status).toBe(404);
  const sessions = new Set((await stage.eventsRead(video)).map((e) => (e as { session_code?: string }).session_code));
  expect([sessions.has(one.session_id), sessions.has(two.session_id), sessions.size]).toEqual([false, false, 1]);
}, 150_000);
