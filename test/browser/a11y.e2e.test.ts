/**
 * axe-core in Chromium on every dashboard page (signed in, with videos, a
 * split test, the player settings forms): no serious or critical violation.
 * The player's own walk is in player-fundamentals.e2e.test.ts.
 */
import { expect, test } from "bun:test";
import { ADMIN_KEY } from "../helpers/app.ts";
import { axeProblems } from "../helpers/axe.ts";
import { dashboardOnAPort } from "../helpers/dashboard.ts";
import { evenSplit } from "../helpers/split-viewers.ts";

let videoId: number;
let splitId: number;

const dash = dashboardOnAPort(async ({ t, ws }) => {
  const a = await t.createVideo(ws, { title: "Launch letter" });
  const b = await t.createVideo(ws, { title: "Launch story" });
  videoId = a.id;
  const split = await t.call("POST", "/api/v1/split-tests", {
    token: ws.token,
    body: {
      name: "Letter or story",
      goal: "play",
      variations: evenSplit(a.id, b.id),
    },
  });
  splitId = split.body.id ?? split.body.split_test?.id;
});

test("axe-core: no serious or critical violation on any dashboard page", async () => {
  // The dashboard's CSP forbids injected scripts; the test context bypasses it to load axe-core.
  const ctx = await dash.browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const base = `http://127.0.0.1:${dash.server.port}/dashboard`;
  const found: Record<string, string[]> = {};
  const check = async (name: string) => {
    await page.locator("h1").first().waitFor();
    await page.waitForLoadState("networkidle");
    const problems = await axeProblems(page);
    if (problems.length) found[name] = problems;
  };
  await page.goto(base);
  await check("sign-in");
  await page.getByLabel("Admin key").fill(ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: new RegExp(dash.wsName) }).waitFor();
  await check("workspaces");
  await page.getByRole("button", { name: new RegExp(dash.wsName) }).click();
  await page.waitForURL(/\/dashboard\/videos$/);
  for (const path of [
    "/home",
    "/videos",
    `/videos/${videoId}`,
    `/videos/${videoId}/settings`,
    `/videos/${videoId}/analytics`,
    `/videos/${videoId}/paths`,
    "/analytics",
    "/split-tests",
    ...(splitId ? [`/split-tests/${splitId}`] : []),
    "/webhooks",
    "/settings/tokens",
    "/settings/metrics",
    "/settings/integrations",
    "/settings/protection",
  ]) {
    await page.goto(base + path);
    await check(path);
  }
  expect(splitId).toBeGreaterThan(0);

  // The forms of the settings the player now reads: they deploy what they show.
  await page.goto(`${base}/videos/${videoId}/settings`);
  await page.getByLabel("Before play").selectOption("auto");
  await page.getByLabel("Speeds in the menu").fill("1, 1.5, 2");
  await page.getByLabel("Start at speed").fill("1.5");
  await page.getByLabel("Caption size").selectOption("large");
  await page.getByLabel("Show a logo at the top right of the player").check();
  await page.getByLabel("Logo image URL").fill("https://example.com/logo.png");
  await page.getByLabel("Logo links to (optional)").fill("https://example.com/");
  await page.getByLabel("Picture in picture").check();
  await page.getByRole("button", { name: "Deploy" }).click();
  await page.getByText(/Deployed: version \d+ is live/).waitFor();
  const live = (await dash.t.call("GET", `/api/v1/videos/${videoId}/settings`, { token: dash.ws.token })).body.settings;
  expect(live.playback_options.preload).toBe("auto");
  expect(live.speed_options).toMatchObject({ speeds: [1, 1.5, 2], default_speed: 1.5 });
  expect(live.captions_options.font_size).toBe("large");
  expect(live.branding_options).toMatchObject({ show_logo: true, logo_url: "https://example.com/logo.png", logo_link: "https://example.com/" });
  expect(live.controls_options.pip).toBe(true);
  expect(await axeProblems(page)).toEqual([]);
  // The check itself finds what it should: an unnamed field and an image without text.
  await page.setContent('<!doctype html><html lang="en"><title>x</title><main><img src="/x.png"><input></main></html>');
  expect((await axeProblems(page)).map((p) => p.split(":")[0]).sort()).toEqual(["image-alt", "label"]);
  expect(found).toEqual({});
  await ctx.close();
}, 120_000);
