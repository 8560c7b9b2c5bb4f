import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { chromium, type Browser } from "playwright-core";
import { appAndWorkspace, ADMIN_KEY, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { buildTracker } from "../../tracker/build.ts";
import budget from "../../tracker/budget.json";

let t: TestApp;
let ws: TestWorkspace;
let video: { id: number; code: string };
let browser: Browser;
let api: ReturnType<typeof Bun.serve>;
let site: ReturnType<typeof Bun.serve>;

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

async function rows(event: string): Promise<any[]> {
  const result = await t.deps.ch.query({
    query: "SELECT * FROM events WHERE workspace_id = {w:UInt64} AND event = {e:String}",
    query_params: { w: ws.id, e: event },
    format: "JSONEachRow",
  });
  return result.json();
}
/** The rows of `event` (those `which` keeps), once there are at least `n` of them or after 5 s. */
async function waitForRows(event: string, n: number, which: (row: any) => boolean = () => true): Promise<any[]> {
  for (let i = 0; i < 100; i++) {
    const found = (await rows(event)).filter(which);
    if (found.length >= n) return found;
    await Bun.sleep(50);
  }
  return (await rows(event)).filter(which);
}

beforeAll(async () => {
  ({ t, ws } = await appAndWorkspace());
  const created = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "Tracked" } });
  video = { id: created.body.video.id, code: created.body.video.code };
  for (const name of ["signup", "checkout_started"]) await t.call("POST", `/admin/v1/workspaces/${ws.id}/custom-metrics`, { token: ADMIN_KEY, body: { name } });
  // The service on one origin, the customer's page on another: the script talks to the service cross-origin.
  api = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => t.app.handle(request) });
  const scriptUrl = `http://127.0.0.1:${api.port}/t.js`;
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () =>
      new Response(
        `<!doctype html><html><body><script>
          window.fl = window.fl || function () { (fl.q = fl.q || []).push(arguments) };
          fl("event", "Signup", { plan: "pro", value: 49, email: "  A@B.co ", phone: "+1 (555) 010-9999", external_id: "crm-9" });
          fl("session", function (id) { window.queuedSession = id });
        </script><script async src="${scriptUrl}" data-workspace="${ws.code}"></script></body></html>`,
        { headers: { "Content-Type": "text/html" } },
      ),
  });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu"] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  api?.stop(true);
  site?.stop(true);
});

describe("tracker", () => {
  test(`is at most ${budget["t.js"].maxGzipBytes} bytes gzipped and served at /t.js`, async () => {
    const code = await buildTracker();
    const gzipped = gzipSync(code).length;
    expect(gzipped).toBeLessThanOrEqual(budget["t.js"].maxGzipBytes);
    const served = await t.call("GET", "/t.js");
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toContain("javascript");
    expect(served.text).toBe(code);
  });

  test("runs queued calls, hashes identity in the page, sends value and properties, and exposes the global", async () => {
    const page = await browser.newPage();
    const bodies: string[] = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/v1/track")) bodies.push(r.postData() ?? "");
    });
    await page.goto(`http://127.0.0.1:${site.port}/`);
    await page.waitForFunction(() => (window as any).Frameline && (window as any).queuedSession);
    const ids = await page.evaluate(() => ({
      session: (window as any).Frameline.getSessionId(),
      device: (window as any).Frameline.getDeviceId(),
      queued: (window as any).queuedSession,
      fl: (window as any).fl("session"),
    }));
    expect(ids.session).toBeString();
    expect(ids.queued).toBe(ids.session);
    expect(ids.fl).toBe(ids.session);

    const [row] = await waitForRows("signup", 1);
    expect(row).toMatchObject({ event_type: "custom", value: 49, properties: { plan: "pro", $source: "browser" } });
    // The browser reports the request on its own channel: it may come in after the row.
    for (let i = 0; i < 50 && !bodies.some((b) => b.includes('"Signup"')); i++) await Bun.sleep(20);
    const body = bodies.find((b) => b.includes('"Signup"'))!;
    expect(JSON.parse(body)).toMatchObject({
      workspace_code: ws.code,
      event: "Signup",
      value: 49,
      email_sha256: sha256("a@b.co"),
      phone_sha256: sha256("+15550109999"),
      external_id: "crm-9",
    });
    // The raw email and phone never leave the page (the body also holds random ids, so look for whole values).
    expect(body.toLowerCase()).not.toContain("a@b.co");
    expect(body).not.toContain("010-9999");
    expect(body).not.toContain("5550109999");

    // track() after load, and the device id survives a reload while the tab keeps its session.
    await page.evaluate(() => (window as any).Frameline.track("checkout_started", { step: 2 }));
    await waitForRows("checkout_started", 1);
    await page.reload();
    await page.waitForFunction(() => (window as any).Frameline);
    const again = await page.evaluate(() => ({ session: (window as any).Frameline.getSessionId(), device: (window as any).Frameline.getDeviceId() }));
    expect(again).toEqual({ session: ids.session, device: ids.device });
    await page.close();
  }, 60_000);

  test("the page trims what the events host would refuse (30 properties, 200-character values, a 41-character key): answered 2xx, stored within the limits", async () => {
    const page = await browser.newPage();
    const answers: number[] = [];
    const bodies: string[] = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/v1/track") && r.postData()?.includes("limits_marker")) bodies.push(r.postData()!);
    });
    page.on("response", (r) => {
      if (r.url().endsWith("/v1/track") && r.request().postData()?.includes("limits_marker")) answers.push(r.status());
    });
    await page.goto(`http://127.0.0.1:${site.port}/`);
    await page.waitForFunction(() => (window as any).Frameline);
    const longKey = "k".repeat(41);
    await page.evaluate((longKey) => {
      const props: Record<string, unknown> = { limits_marker: "yes", [longKey]: "long key", nested: { a: 1 }, value: 2e9 };
      for (let i = 0; i < 30; i++) props[`p${String(i).padStart(2, "0")}`] = "v".repeat(200);
      (window as any).Frameline.track("checkout_started", props);
    }, longKey);
    for (let i = 0; i < 100 && answers.length === 0; i++) await Bun.sleep(50);
    expect(answers).toHaveLength(1);
    expect(answers[0]).toBeGreaterThanOrEqual(200);
    expect(answers[0]).toBeLessThan(300);
    const sent = JSON.parse(bodies[0]!);
    expect(Object.keys(sent.properties)).toHaveLength(20);
    expect(sent.properties[longKey.slice(0, 40)]).toBe("long key");
    expect(sent.value).toBeUndefined();

    const [row] = await waitForRows("checkout_started", 1, (r) => r.properties.limits_marker === "yes");
    const stored = Object.entries(row.properties as Record<string, string>).filter(([k]) => !k.startsWith("$"));
    expect(stored).toHaveLength(20);
    expect(stored.every(([k, v]) => k.length <= 40 && v.length <= 100)).toBe(true);
    expect(row.properties.p00).toBe("v".repeat(100));
    await page.close();
  }, 60_000);

  test("fl_sid joins the session, so a checkout on another domain attributes to the player's viewer", async () => {
    const sid = "joined-" + crypto.randomUUID();
    const played = await t.call("POST", "/v1/collect", {
      body: { workspace_code: ws.code, video_code: video.code, session_id: sid, events: [{ type: "play" }] },
    });
    expect(played.status).toBe(200);
    const page = await browser.newPage();
    const answers: number[] = [];
    page.on("response", (r) => {
      if (r.url().endsWith("/v1/track")) answers.push(r.status());
    });
    await page.goto(`http://127.0.0.1:${site.port}/checkout?fl_sid=${sid}`);
    await page.waitForFunction(() => (window as any).Frameline);
    expect(await page.evaluate(() => (window as any).Frameline.getSessionId())).toBe(sid);
    // The page of the test before sends a signup on each load too: wait for this session's own.
    const found = await waitForRows("signup", 1, (r) => r.session_code === sid);
    expect(found).toHaveLength(1);
    expect(Number(found[0].viewer_id)).toBeGreaterThan(0);
    // An undeclared name is refused by the service, and the page does not see an exception.
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.evaluate(() => (window as any).Frameline.track("not_declared", {}));
    for (let i = 0; i < 50 && !answers.includes(422); i++) await Bun.sleep(50);
    expect(answers).toContain(422);
    expect(errors).toEqual([]);
    // An fl_sid that is not a valid id is not joined (the player applies the same rule).
    await page.goto(`http://127.0.0.1:${site.port}/checkout?fl_sid=${encodeURIComponent("no good")}`);
    await page.waitForFunction(() => (window as any).Frameline);
    expect(await page.evaluate(() => (window as any).Frameline.getSessionId())).toBe(sid);
    const fresh = await browser.newPage();
    await fresh.goto(`http://127.0.0.1:${site.port}/checkout?fl_sid=short`);
    await fresh.waitForFunction(() => (window as any).Frameline);
    expect(await fresh.evaluate(() => (window as any).Frameline.getSessionId())).toMatch(/^[0-9a-f]{32}$/);
    await fresh.close();
    await page.close();
  }, 60_000);
});
