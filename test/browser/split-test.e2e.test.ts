/**
 * A split test as viewers see it, in real Chromium against the real app on a port:
 * two videos deployed with their own settings, a 50/50 test, and the test's snippet
 * on a page of another origin. Each browser context (its own device) is served the
 * variation its device id hashes to, sees that variation's own player, keeps it after
 * a reload, and its player's events reach the report under that variation. The
 * control's own embed serves the test too.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { rmSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { launchBrowser, makeHlsStream, page, tempDir, until } from "../helpers/browser.ts";
import { browserId } from "../helpers/split-viewers.ts";
import { pickVariation } from "../../server/api/split-tests/assign.ts";

let dir: string;
let browser: Browser;
let t: TestApp;
let ws: TestWorkspace;
let appServer: ReturnType<typeof Bun.serve>;
let pageServer: ReturnType<typeof Bun.serve>;
const pages = new Map<string, string>();
let videos: { id: number; code: string; color: string; rgb: string }[];
let splitTest: { id: number; code: string; variations: { id: number; video_code: string }[]; embed: { html: string } };

beforeAll(async () => {
  dir = tempDir();
  await Promise.all([makeHlsStream(join(dir, "a"), 6, "640x360"), makeHlsStream(join(dir, "b"), 6, "480x270")]);
  // The app on a real port (its URLs name it), plus the two HLS streams the videos' media point at.
  let app: TestApp["app"] | undefined;
  appServer = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const { pathname } = new URL(req.url);
      if (pathname.startsWith("/hls/")) {
        const file = Bun.file(join(dir, pathname.slice("/hls/".length)));
        if (!pathname.includes("..") && (await file.exists())) return new Response(file, { headers: { "access-control-allow-origin": "*" } });
        return new Response("not found", { status: 404 });
      }
      return app!.handle(req);
    },
  });
  const origin = `http://127.0.0.1:${appServer.port}`;
  // The seller's page, on another origin.
  pageServer = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => {
      const html = pages.get(new URL(req.url).pathname);
      return html ? new Response(html, { headers: { "content-type": "text/html" } }) : new Response("not found", { status: 404 });
    },
  });
  t = await testApp({ publicUrl: origin });
  app = t.app;
  ws = await t.workspace();
  [browser] = await Promise.all([launchBrowser()]);

  videos = [];
  for (const [name, color, rgb] of [
    ["a", "#e11d48", "rgb(225, 29, 72)"],
    ["b", "#2563eb", "rgb(37, 99, 235)"],
  ] as const) {
    const video = await t.createVideo(ws, { title: `Offer ${name}` });
    // Encoded media, as the encoder leaves it (the stream made above).
    const ready = { status: "ready", progress: 100, error: null, w: name === "a" ? 640 : 480, h: name === "a" ? 360 : 270 };
    await t.deps.sql`
      UPDATE videos SET landscape_media = ${t.deps.sql.json(ready as never)}, landscape_hls = ${`${origin}/hls/${name}/index.m3u8`},
        landscape_thumb = ${`${origin}/hls/${name}/poster.jpg`} WHERE id = ${video.id}`;
    const deployed = await t.call("POST", `/api/v1/videos/${video.id}/deploy`, {
      token: ws.token,
      body: { style_options: { main_color: color }, playback_options: { hls_engine: "hlsjs" }, engagement_options: { heartbeat_s: 2 } },
    });
    expect(deployed.status).toBe(200);
    videos.push({ id: video.id, code: video.code, color, rgb });
  }
  const created = await t.call("POST", "/api/v1/split-tests", {
    token: ws.token,
    body: {
      name: "Which offer video",
      goal: "play",
      variations: videos.map((v) => ({ video_id: v.id, weight: 50 })),
    },
  });
  expect(created.status).toBe(201);
  splitTest = created.body.split_test;
  pages.set("/offer.html", page(splitTest.embed.html));
  pages.set(
    "/control.html",
    page(`<div class="frameline-player" data-video="${videos[0]!.code}"></div><script async src="${origin}/cdn/p/${videos[0]!.code}.js"></script>`),
  );
}, 120_000);

afterAll(async () => {
  await browser?.close();
  appServer?.stop(true);
  pageServer?.stop(true);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const pageUrl = (path: string) => `http://127.0.0.1:${pageServer.port}${path}`;

/** The video a device id is served: the weights' percentile of the test and the device (server/api/split-tests/assign.ts). */
const expectedFor = (device: string) => videos[pickVariation(splitTest.code, device, [50, 50])]!;

/** What the viewer sees: which video's player mounted, in which colour, and the ids its page uses. */
async function shown(p: Page) {
  await p.waitForSelector(".frameline-player[data-fl-mounted] .fl-big", { timeout: 15_000 });
  return p.evaluate(() => ({
    video: document.querySelector(".frameline-player")!.getAttribute("data-video"),
    color: getComputedStyle(document.querySelector(".fl-big")!).backgroundColor,
    device: localStorage.getItem("fl_did"),
    session: window.Frameline!.getSessionId(),
    players: document.querySelectorAll(".fl-root").length,
  }));
}

async function play(p: Page) {
  await p.click(".fl-big");
  await p.waitForFunction(() => (document.querySelector("video")?.currentTime ?? 0) > 1, null, { timeout: 15_000 });
}

test("two devices on the test's snippet get their variations by weight, each with its own player, and keep them after a reload", async () => {
  const errors: string[] = [];
  const open = async (ctx: BrowserContext) => {
    const p = await ctx.newPage();
    p.on("pageerror", (e) => errors.push(String(e)));
    await p.goto(pageUrl("/offer.html"));
    return p;
  };

  // Device 1: a fresh browser, its device id minted by the page.
  const ctx1 = await browser.newContext();
  const p1 = await open(ctx1);
  const first = await shown(p1);
  const v1 = expectedFor(first.device!);
  expect(first).toMatchObject({ video: v1.code, color: v1.rgb, players: 1 });
  await play(p1);
  await p1.reload();
  expect(await shown(p1)).toMatchObject({ video: v1.code, color: v1.rgb, device: first.device, session: first.session, players: 1 });

  // Device 2: a browser whose device id the weights give the other variation.
  const v2 = videos.find((v) => v.code !== v1.code)!;
  let device2 = browserId();
  while (expectedFor(device2).code !== v2.code) device2 = browserId();
  const ctx2 = await browser.newContext();
  await ctx2.addInitScript((id) => {
    if (!localStorage.getItem("fl_did")) localStorage.setItem("fl_did", id);
  }, device2);
  const p2 = await open(ctx2);
  const second = await shown(p2);
  expect(second).toMatchObject({ video: v2.code, color: v2.rgb, device: device2, players: 1 });
  await play(p2);
  await p2.reload();
  expect(await shown(p2)).toMatchObject({ video: v2.code, color: v2.rgb, device: device2, session: second.session });

  // The control's own embed, while the test runs, serves device 2 its variation too.
  const p3 = await ctx2.newPage();
  p3.on("pageerror", (e) => errors.push(String(e)));
  await p3.goto(pageUrl("/control.html"));
  expect(await shown(p3)).toMatchObject({ video: v2.code, color: v2.rgb, device: device2 });

  for (const p of [p1, p2, p3]) await p.close({ runBeforeUnload: true });
  expect(errors).toEqual([]);

  // The events host recorded each device's views under its variation: a reload is the same tab's session, device 2's
  // second page (the control's embed) another tab's, so two impressions there; one play each, one viewer each.
  const variationOf = (code: string) => splitTest.variations.find((v) => v.video_code === code)!.id;
  const figures = async () => {
    const r = (await t.call("GET", `/api/v1/split-tests/${splitTest.id}/report`, { token: ws.token })).body;
    return [v1, v2].map((v) => {
      const row = r.variations.find((x: { variation_id: number }) => x.variation_id === variationOf(v.code));
      return { impressions: row.impressions, plays: row.plays, unique_viewers: row.unique_viewers };
    });
  };
  const want = [
    { impressions: 1, plays: 1, unique_viewers: 1 },
    { impressions: 2, plays: 1, unique_viewers: 1 },
  ];
  // The last batches leave with the pages' beacons: wait for them with the browsers still open (closing a context
  // cancels a beacon still in flight), then compare.
  await until(async () => JSON.stringify(await figures()) === JSON.stringify(want), 15_000, 200).catch(() => {});
  await ctx1.close();
  await ctx2.close();
  expect(await figures()).toEqual(want);
}, 120_000);
