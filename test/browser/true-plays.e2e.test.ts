/**
 * True plays in real Chromium, through the real events host: a muted autoplay that
 * nobody unmutes is an autoplay and not a play; unmuting it makes it a play; every
 * page view sends one `load` (an impression), with the landing page's utm_*; and the
 * seller overview and breakdown read exactly that.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import type { CollectEvent } from "../../player/types.ts";
import type { TestApp, TestWorkspace } from "../helpers/app.ts";
import { playedPast, playerOverApp, until, type LocalServer, type PlayerOverApp } from "../helpers/browser.ts";

let browser: Browser;
let server: LocalServer;
let t: TestApp;
let w: TestWorkspace;
let video: { id: number; code: string };
let stage: PlayerOverApp;

beforeAll(async () => {
  stage = await playerOverApp(
    "Autoplay VSL",
    {
      autoplay_options: { enabled: true, muted: true, unmute_prompt: true, unmute_prompt_text: "Tap for sound" },
      playback_options: { hls_engine: "hlsjs" },
      engagement_options: { heartbeat_s: 2 },
    },
    "offer",
  );
  ({ browser, server, t, w, video } = stage);
}, 60_000);

afterAll(() => stage?.stop());

/** Every event a session sent, in order: each batch once (a batch may be sent again, by beacon at unload; its number is the same). */
const sent = (session: string): CollectEvent[] => {
  const seen = new Set<number>();
  return server.collects.filter((b) => b.session_id === session && (b.seq === undefined || (!seen.has(b.seq) && seen.add(b.seq)))).flatMap((b) => b.events);
};
const types = (session: string) => sent(session).map((e) => e.type);

async function autoplaying(p: Page) {
  // The player mounts once its script has loaded: until then there is no <video>.
  await p.waitForFunction(() => (document.querySelector("video")?.currentTime ?? 0) > 1, null, { timeout: 15000 });
  expect(await p.evaluate(() => document.querySelector("video")!.muted)).toBe(true);
}

test("muted autoplay is not a play until unmuted; one load per page view; the overview reads it", async () => {
  // Visitor 1 lands from an ad, watches the muted autoplay, reloads the page, and never unmutes.
  const ctx1 = await browser.newContext();
  const p1 = await ctx1.newPage();
  const errors: string[] = [];
  p1.on("pageerror", (e) => errors.push(String(e)));
  await p1.goto(`${server.url}/offer.html?utm_source=facebook&utm_medium=cpc`);
  await autoplaying(p1);
  const s1 = await p1.evaluate(() => window.Frameline!.getSessionId());
  // Heartbeats flush every 2 s: still exactly one load for this page view.
  await until(() => types(s1).includes("watched"), 8000);
  await Bun.sleep(2500);
  expect(types(s1).filter((x) => x === "load")).toHaveLength(1);
  await p1.reload();
  await autoplaying(p1);
  await p1.close({ runBeforeUnload: true });
  await until(() => types(s1).filter((x) => x === "load").length === 2 && types(s1).filter((x) => x === "autoplay").length === 2, 8000);
  expect(types(s1)).not.toContain("play");
  expect(types(s1)).not.toContain("unmute");
  const load = sent(s1).find((e) => e.type === "load")!;
  expect(load).toMatchObject({ utm_source: "facebook", utm_medium: "cpc", page_path: "/offer.html" });

  // Visitor 2 arrives directly and unmutes: that is a play.
  const ctx2 = await browser.newContext();
  const p2 = await ctx2.newPage();
  p2.on("pageerror", (e) => errors.push(String(e)));
  await p2.goto(`${server.url}/offer.html`);
  await autoplaying(p2);
  const s2 = await p2.evaluate(() => window.Frameline!.getSessionId());
  await p2.click(".fl-unmute");
  expect(await p2.evaluate(() => document.querySelector("video")!.muted)).toBe(false);
  await playedPast(p2, 1);
  await p2.close({ runBeforeUnload: true });
  await until(() => types(s2).includes("unmute") && types(s2).includes("watched"), 8000);
  expect(types(s2).filter((x) => x === "load")).toHaveLength(1);
  expect(types(s2).indexOf("autoplay")).toBeLessThan(types(s2).indexOf("unmute"));
  await ctx1.close();
  await ctx2.close();

  // Every batch was accepted by the real events host.
  await until(() => server.statuses.length >= server.collects.length, 5000);
  expect(server.statuses.every((s) => s === 200)).toBe(true);
  const overview = (await t.call("GET", `/api/v1/videos/${video.id}/analytics/overview`, { token: w.token })).body.overview;
  expect(overview).toMatchObject({ impressions: 2, autoplays: 2, unmutes: 1, unmute_rate: 0.5, plays: 1, play_rate: 0.5, unique_viewers: 2 });
  expect(overview.startup_time_ms.p50).toBeGreaterThan(0);
  const summary = (await t.call("GET", `/api/v1/videos/${video.id}/analytics/summary`, { token: w.token })).body.summary;
  expect(summary.plays).toBe(1);
  const bySource = (await t.call("GET", `/api/v1/videos/${video.id}/analytics/breakdown?by=source`, { token: w.token })).body.rows;
  expect(bySource.map((r: { value: string; impressions: number; plays: number }) => [r.value, r.impressions, r.plays]).sort()).toEqual([
    ["direct", 1, 1],
    ["facebook", 1, 0],
  ]);
  const byBrowser = (await t.call("GET", `/api/v1/videos/${video.id}/analytics/breakdown?by=browser`, { token: w.token })).body.rows;
  expect(byBrowser.map((r: { value: string; impressions: number }) => [r.value, r.impressions])).toEqual([["Chrome", 2]]);
  expect(errors).toEqual([]);
}, 90_000);
