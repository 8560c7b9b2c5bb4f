/**
 * Nothing lost when the events host stumbles (README "Production"): the player in
 * Chromium keeps the batches it could not send (browser/outbox.ts) and sends them,
 * oldest first, once the events host answers again; each is written once
 * (its session's `seq`), even the one whose answer was lost.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Route } from "playwright-core";
import type { CollectBatch } from "../../player/types.ts";
import type { TestApp, TestWorkspace } from "../helpers/app.ts";
import { playedPast, playerOverApp, until, type LocalServer, type PlayerOverApp } from "../helpers/browser.ts";

let browser: Browser;
let server: LocalServer;
let t: TestApp;
let w: TestWorkspace;
let stage: PlayerOverApp;

beforeAll(async () => {
  stage = await playerOverApp("Outage", { playback_options: { hls_engine: "hlsjs" }, engagement_options: { heartbeat_s: 1 } }, "outage");
  ({ browser, server, t, w } = stage);
}, 60_000);

afterAll(() => stage?.stop());

/** The rows a batch makes: one per event, a heartbeat one per watched range. */
const rowsOf = (batch: CollectBatch) =>
  batch.events.reduce((n, e) => n + (e.type === "heartbeat" ? ((e as { ranges?: unknown[] }).ranges?.length ?? 0) : 1), 0);

test("the events host away for a moment: the batches of that moment arrive after it returns, each written once", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  // Every batch the page sends, in order, by its number; while `away`, the network refuses them.
  const attempts: CollectBatch[] = [];
  let away = false;
  let lostAnswer = false;
  await page.route("**/v1/collect", async (route: Route) => {
    const batch = JSON.parse(route.request().postData() ?? "{}") as CollectBatch;
    attempts.push(batch);
    if (away) return route.abort("connectionrefused");
    if (lostAnswer) {
      // The events host writes the batch but its answer never arrives: the player must send it again, and it must count once.
      lostAnswer = false;
      await route.fetch();
      return route.abort("connectionreset");
    }
    return route.continue();
  });
  await page.goto(`${server.url}/outage.html`);
  await page.click(".fl-big");
  await playedPast(page, 1);
  const session = await page.evaluate(() => window.Frameline!.getSessionId());
  await until(() => attempts.length >= 2, 10_000);

  away = true;
  const outageStart = attempts.length;
  await Bun.sleep(3500);
  const triedWhileAway = new Set(attempts.slice(outageStart).map((b) => b.seq));
  expect(triedWhileAway.size).toBeGreaterThanOrEqual(1);
  lostAnswer = true;
  away = false;

  // Back: the queue drains oldest first. Pausing sends what is left.
  await page.evaluate(() => document.querySelector("video")!.pause());
  await until(async () => {
    const last = Math.max(...attempts.map((b) => b.seq ?? 0));
    return (
      server.collects.some((b) => b.seq === last && b.session_id === session) &&
      !(await page.evaluate(
        () => localStorage.length > 0 && Object.keys(localStorage).some((k) => k.startsWith("fl:outbox:") && localStorage.getItem(k) !== null),
      ))
    );
  }, 30_000);

  const distinct = new Map<number, CollectBatch>();
  for (const b of attempts) if (b.session_id === session && b.seq !== undefined && !distinct.has(b.seq)) distinct.set(b.seq, b);
  // Numbered 1, 2, 3, ... with no gap: nothing was dropped in the page.
  expect([...distinct.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: distinct.size }, (_, i) => i + 1));
  // Some were sent more than once (refused while away, an answer lost), and every one reached the events host.
  expect(attempts.filter((b) => b.session_id === session).length).toBeGreaterThan(distinct.size);
  for (const seq of triedWhileAway) expect(server.collects.some((b) => b.seq === seq && b.session_id === session)).toBe(true);

  // In ClickHouse each batch counts once.
  const expected = [...distinct.values()].reduce((n, b) => n + rowsOf(b), 0);
  const stored = async () => {
    const result = await t.deps.ch.query({
      query: "SELECT count() AS n FROM events WHERE workspace_id = {w:UInt64} AND session_code = {s:String}",
      query_params: { w: w.id, s: session },
      format: "JSONEachRow",
    });
    return Number(((await result.json()) as { n: string }[])[0]!.n);
  };
  await until(async () => (await stored()) >= expected, 10_000);
  expect(await stored()).toBe(expected);
  expect(errors).toEqual([]);
  await context.close();
}, 90_000);
