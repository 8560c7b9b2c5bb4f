/**
 * Home in real Chromium against the real server: a workspace without a video walks
 * the seller through upload, settings and the embed snippet; with viewers and a sale
 * (sent through the real events host and conversions API) the owner sees the
 * workspace's totals for the window, who is watching now, the change against the window before, the
 * chart of the days and the ranked videos, and the window stays in the URL. A
 * video's analytics page, opened from the videos list, shows its funnel.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, tempDir } from "../helpers/browser.ts";
import { firstStart, startServer, type ServerProcess } from "../helpers/server-process.ts";
import { axeProblems } from "../helpers/axe.ts";

let dir: string;
let server: ServerProcess;
let browser: Browser | undefined;
let owner: { email: string; password: string; token: string };
/** The video the second test gives viewers and a sale. */
let sold: { id: number; title: string } | undefined;

beforeAll(async () => {
  dir = tempDir("fl-home-");
  [server, browser] = await Promise.all([startServer(dir), launchBrowser()]);
  owner = await firstStart(dir);
}, 150_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const json = async (path: string, key: string, body?: unknown) => {
  const res = await fetch(`${server.base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.ok).toBe(true);
  return res.json() as Promise<any>;
};

async function signedInPage(): Promise<Page> {
  const page = await browser!.newPage({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  await page.goto(`${server.base}/dashboard`);
  await page.getByLabel("Email").fill(owner.email);
  await page.getByLabel("Password").fill(owner.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("button", { name: /Default/ }).click();
  await page.waitForURL(/\/dashboard\/videos$/);
  return page;
}

test("a workspace without a video is walked through upload, settings and the embed snippet", async () => {
  const page = await signedInPage();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Home" }).click();
  await page.getByRole("heading", { name: "Welcome to Frameline" }).waitFor();
  const steps = await page.locator("ol.steps li").allTextContents();
  expect(steps.map((s) => s.split(".")[0])).toEqual(["Upload a video", "Brand the player", "Embed it"]);
  await page.getByRole("link", { name: "Create a video and upload its file" }).click();
  await page.waitForURL(/\/dashboard\/videos$/);
  expect(await axeProblems(page)).toEqual([]);
}, 60_000);

test("with viewers and a sale, Home shows the window's totals, the change, the days and the ranked videos", async () => {
  const { workspaces } = await json("/admin/v1/workspaces", server.adminKey);
  const workspace = workspaces.find((w: { name: string }) => w.name === "Default");
  const { video } = await json("/api/v1/videos", owner.token, { title: "Spring launch" });
  sold = video;
  // Three viewers through the real events host: all shown the player, two press play; one buys.
  for (const [session, played] of [
    ["home-a", true],
    ["home-b", true],
    ["home-c", false],
  ] as const) {
    const now = Date.now();
    const res = await fetch(`${server.base}/v1/collect`, {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: JSON.stringify({
        workspace_code: workspace.code,
        video_code: video.code,
        session_id: session,
        device_id: `device-${session}`,
        // The two who play are still watching: their players' heartbeats came in this minute.
        events: [
          { type: "load", t: now - 3000, video_time: 0 },
          ...(played
            ? [
                { type: "play", t: now - 2000, video_time: 0 },
                { type: "heartbeat", t: now - 1000, video_time: 1, ranges: [{ from_s: 0, to_s: 1 }] },
              ]
            : []),
        ],
      }),
    });
    expect(res.status).toBe(200);
  }
  await json("/api/v1/conversions", owner.token, { video_code: video.code, session_code: "home-a", conversion_value: 120, conversion_currency: "USD" });

  const page = await signedInPage();
  await page.goto(`${server.base}/dashboard/home?window=7d`);
  const figure = (label: string) => page.locator(`[data-overview="${label}"]`);
  await page.waitForFunction(() => document.querySelector('[data-overview="Impressions"]')?.textContent === "3", undefined, { timeout: 30_000 });
  expect(await figure("Plays").textContent()).toBe("2");
  await page.waitForFunction(() => document.querySelector('[data-overview="Watching now"]')?.textContent === "2", undefined, { timeout: 10_000 });
  expect(await figure("Play rate").textContent()).toBe("66.7 %");
  expect(await figure("Orders").textContent()).toBe("1");
  expect(await figure("Revenue (USD)").textContent()).toBe("$120.00");
  // Nothing happened in the 7 days before: nothing to compare with, said so.
  expect(await page.locator('[data-change="Impressions"]').textContent()).toBe("no previous 7 days to compare");
  await page.getByRole("figure").first().waitFor();
  await page.locator(`[data-home-video="${video.id}"]`).waitFor();

  // The window is in the URL: a preset, then custom days.
  await page.getByRole("navigation", { name: "Window" }).getByRole("link", { name: "30 days" }).click();
  await page.waitForURL(/\/dashboard\/home\?window=30d$/);
  const today = new Date().toISOString().slice(0, 10);
  await page.getByRole("textbox", { name: "From", exact: true }).fill(today);
  await page.getByRole("textbox", { name: "To", exact: true }).fill(today);
  await page.getByRole("button", { name: "Show these days" }).click();
  await page.waitForURL(new RegExp(`/dashboard/home\\?from=${today}&to=${today}$`));
  await page.waitForFunction(() => document.querySelector('[data-overview="Impressions"]')?.textContent === "3", undefined, { timeout: 30_000 });
  expect(await page.locator("[data-window]").getAttribute("data-window")).toBe(`${today}/${today}`);
  expect(await axeProblems(page)).toEqual([]);
}, 120_000);

test("a video's analytics page opens from the videos list and shows its funnel, the window kept in the URL", async () => {
  expect(sold).toBeDefined();
  const page = await signedInPage();
  await page
    .getByRole("list", { name: "Videos" })
    .getByRole("listitem")
    .filter({ hasText: sold!.title })
    .getByRole("link", { name: "Analytics", exact: true })
    .click();
  await page.waitForURL(new RegExp(`/dashboard/videos/${sold!.id}/analytics$`));
  const step = (label: string) => page.locator(`[data-funnel="${label}"]`);
  await page.waitForFunction(() => document.querySelector('[data-funnel="Impressions"] .bar-num')?.textContent === "3", undefined, { timeout: 30_000 });
  const labels = await page.locator("[data-funnel]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-funnel")));
  expect(labels).toEqual(["Impressions", "Plays", "Watched 25 %", "Watched 50 %", "Watched 75 %", "Watched 100 %", "CTA clicks", "Leads", "Orders"]);
  expect(await step("Plays").locator(".bar-num").textContent()).toBe("2");
  expect(await step("Plays").locator("[data-drop]").textContent()).toBe("−33.3 %");
  expect(await step("Orders").locator(".bar-num").textContent()).toBe("1");

  // A chosen window goes into the URL and survives a reload (a link to share).
  const today = new Date().toISOString().slice(0, 10);
  await page.getByRole("textbox", { name: "From", exact: true }).fill(today);
  await page.getByRole("button", { name: "Refresh" }).click();
  await page.waitForURL(new RegExp(`/analytics\\?from=${today}&to=${today}$`));
  await page.reload();
  expect(await page.getByRole("textbox", { name: "From", exact: true }).inputValue()).toBe(today);
  await page.waitForFunction(() => document.querySelector('[data-funnel="Impressions"] .bar-num')?.textContent === "3", undefined, { timeout: 30_000 });
  expect(await axeProblems(page)).toEqual([]);
}, 120_000);
