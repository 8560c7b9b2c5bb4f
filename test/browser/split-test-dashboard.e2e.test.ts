/**
 * The split-test pages of the dashboard in real Chromium against the real app on a
 * port: the seller creates a test from two videos, sees its snippet, watches the
 * report (a table per variation and the goal over time) fill with traffic that
 * arrives through the events host, and ends it with a winner.
 * Screenshot: test/artifacts/split-test-report.png.
 */
import { expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ADMIN_KEY } from "../helpers/app.ts";
import { ROOT } from "../helpers/browser.ts";
import { dashboardOnAPort } from "../helpers/dashboard.ts";
import { collect, inParallel, newViewer, served } from "../helpers/split-viewers.ts";

const ARTIFACTS = join(ROOT, "test/artifacts");

const dash = dashboardOnAPort(async ({ t, ws }) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  await t.createVideo(ws, { title: "Long letter VSL" });
  await t.createVideo(ws, { title: "Short story VSL" });
});

test("create a test from two videos, watch its report fill, end it", async () => {
  const page = await dash.browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${dash.server.port}/dashboard`);
  await page.getByLabel("Admin key").fill(ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: new RegExp(dash.wsName) }).click();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Split tests" }).click();
  await page.getByRole("heading", { name: "New split test" }).waitFor();

  // Weights that do not add up are refused by the server, next to the list.
  await page.getByLabel("Name").fill("Letter or story");
  await page.getByLabel("Goal").selectOption("play");
  await page.getByLabel("Control video").selectOption({ label: "Long letter VSL" });
  await page.getByLabel("Variation 2 video").selectOption({ label: "Short story VSL" });
  await page.locator("#st-weight-1").fill("40");
  expect(await page.locator("[data-weight-sum]").getAttribute("data-weight-sum")).toBe("90");
  await page.getByRole("button", { name: "Start the test" }).click();
  await page.locator('[data-field-error="variations"]').waitFor();
  expect(await page.locator('[data-field-error="variations"]').textContent()).toContain("add up to 100");
  await page.locator("#st-weight-1").fill("50");
  await page.getByRole("button", { name: "Start the test" }).click();

  await page.getByRole("heading", { name: "Letter or story" }).waitFor();
  expect(await page.locator("[data-split-status]").getAttribute("data-split-status")).toBe("running");
  const test = (await dash.t.call("GET", "/api/v1/split-tests", { token: dash.ws.token })).body.data[0];
  expect(test.name).toBe("Letter or story");
  expect(await page.locator("[data-embed]").inputValue()).toBe(test.embed.html);

  // Traffic through the events host: 30 viewers, every third presses play.
  const counts = new Map<number, { impressions: number; plays: number }>();
  await inParallel(Array.from({ length: 30 }, newViewer), 6, async (viewer, i) => {
    const s = await served(dash.t, dash.ws.code, test.code, viewer);
    await collect(dash.t, dash.ws.code, s.video_code, viewer, i % 3 === 0 ? ["load", "play"] : ["load"]);
    const c = counts.get(s.variation_id) ?? { impressions: 0, plays: 0 };
    c.impressions++;
    if (i % 3 === 0) c.plays++;
    counts.set(s.variation_id, c);
  });
  await page.reload();
  for (const v of test.variations as { id: number }[]) {
    const row = page.locator(`[data-report-variation="${v.id}"]`);
    await row.waitFor();
    const want = counts.get(v.id) ?? { impressions: 0, plays: 0 };
    expect(await row.locator("[data-impressions]").textContent()).toBe(String(want.impressions));
    expect(await row.locator("[data-goal-rate]").textContent()).toContain(`(${want.plays} of ${want.impressions})`);
  }
  // The goal over time is drawn, and its text says each variation's rate.
  await page.locator("figure.chart canvas").first().waitFor();
  expect(await page.locator("figure.chart [role=img]").getAttribute("aria-label")).toContain("Play rate over time");
  expect(await page.locator("[data-decision]").textContent()).toContain("Not enough data yet");
  await page.screenshot({ path: join(ARTIFACTS, "split-test-report.png"), fullPage: true });

  // End it with the second video as the winner.
  page.once("dialog", (d) => d.accept());
  await page.getByLabel("Winner").selectOption({ label: "Short story VSL" });
  await page.getByRole("button", { name: "End the test" }).click();
  await page.locator('[data-split-status="ended"]').waitFor();
  expect(await page.locator("[data-split-status]").textContent()).toContain("everyone sees Short story VSL");
  const ended = (await dash.t.call("GET", `/api/v1/split-tests/${test.id}`, { token: dash.ws.token })).body.split_test;
  expect(ended).toMatchObject({ status: "ended", winner_variation_id: test.variations[1].id });
  expect(errors).toEqual([]);
}, 120_000);
