/**
 * The seller's dashboard in real Chromium against the real server (`bun server/main.ts`
 * on embedded engines in a temp DATA_DIR). Traffic arrives through the real paths
 * (`/v1/collect` from two devices and two sources, a verified sale); the seller signs
 * in, sees the video ranked on Home, opens its analytics, reads the overview cards and
 * the breakdown, enters ad spend and sees ROAS; a smart-autoplay video's plays over time
 * add up to the plays its cards count. Screenshots: test/artifacts/seller-*.png.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { ROOT, launchBrowser, tempDir, until } from "../helpers/browser.ts";

const ARTIFACTS = join(ROOT, "test/artifacts");
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1";
const DESKTOP = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

let dir: string;
let base: string;
let adminKey: string;
let server: ReturnType<typeof Bun.spawn> | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  dir = tempDir("fl-seller-");
  mkdirSync(ARTIFACTS, { recursive: true });
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  base = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !/^(DATABASE_URL|CLICKHOUSE_URL|REDIS_URL|ADMIN_KEY|PUBLIC_URL|S3_)/.test(k)) env[k] = v;
  Object.assign(env, { DATA_DIR: join(dir, "data"), PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn" });
  server = Bun.spawn([join(ROOT, "node_modules/.bin/bun"), "server/main.ts"], {
    cwd: ROOT,
    env,
    stdout: Bun.file(join(dir, "server.log")),
    stderr: Bun.file(join(dir, "server.err")),
  });
  browser = await launchBrowser();
  await until(async () => (await fetch(`${base}/health`).catch(() => undefined))?.ok, 120_000, 250);
  adminKey = readFileSync(join(dir, "data", "admin.key"), "utf8").trim();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  server?.kill();
  await server?.exited;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("Home ranks the video; its analytics show the overview, the breakdown and ROAS once ad spend is entered", async () => {
  // POSTs JSON under a prefix with a bearer key.
  const poster = (prefix: string, key: string) => (path: string, body: unknown) =>
    fetch(`${base}${prefix}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  const admin = poster("/admin/v1", adminKey);
  const ws = ((await (await admin("/workspaces", { name: "Seller Studio" })).json()) as { workspace: { id: number; code: string } }).workspace;
  const token = (
    (await (await admin(`/workspaces/${ws.id}/tokens`, { name: "seed", scopes: ["videos:write", "conversions:write"] })).json()) as { secret: string }
  ).secret;
  const api = poster("/api/v1", token);
  const video = ((await (await api("/videos", { title: "Spring VSL" })).json()) as { video: { id: number; code: string } }).video;

  /** One session's batch through the real events host, from a browser of `ua`. */
  const collect = async (code: string, session: string, ua: string, events: Record<string, unknown>[]) => {
    const res = await fetch(`${base}/v1/collect`, {
      method: "POST",
      headers: { "content-type": "text/plain", "user-agent": ua },
      body: JSON.stringify({ workspace_code: ws.code, video_code: code, session_id: session, device_id: `dev-${session}`, events }),
    });
    expect(res.status).toBe(200);
  };
  // Three visitors: two from a facebook ad on phones (one plays), one direct on a desktop (plays).
  const visit = async (session: string, ua: string, page: Record<string, string>, played: boolean) => {
    const now = Date.now();
    await collect(video.code, session, ua, [
      { type: "load", t: now - 5000, video_time: 0, page_host: "shop.example", page_path: "/offer", ...page },
      ...(played
        ? [
            { type: "play", t: now - 4000, video_time: 0 },
            { type: "watched", t: now - 1000, video_time: 0, from_s: 0, to_s: 30, duration_s: 60 },
          ]
        : []),
    ]);
  };
  await visit("sess-fb-1", IPHONE, { utm_source: "facebook", referrer_host: "facebook.com" }, true);
  await visit("sess-fb-2", IPHONE, { utm_source: "facebook", referrer_host: "facebook.com" }, false);
  await visit("sess-direct", DESKTOP, {}, true);
  expect((await api("/conversions", { video_code: video.code, session_code: "sess-fb-1", conversion_value: 120, conversion_currency: "USD" })).status).toBe(
    201,
  );

  const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto(`${base}/dashboard`);
  await page.getByLabel("Admin key").fill(adminKey);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: /Seller Studio/ }).click();
  await page.waitForURL(/\/dashboard\/videos$/);

  // Home: the video, ranked by revenue per viewer, with its play rate and revenue.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Home" }).click();
  const row = page.locator(`[data-home-video="${video.id}"]`);
  await row.waitFor();
  expect(await row.locator("td").nth(0).textContent()).toBe("Spring VSL");
  // 3 impressions, 2 plays; $120 over 3 unique viewers.
  expect(await row.locator("td").nth(3).textContent()).toBe("66.7 %");
  expect(await row.locator("td").nth(5).textContent()).toBe("$120.00");
  expect(await row.locator("td").nth(6).textContent()).toBe("$40.00");
  await page.screenshot({ path: join(ARTIFACTS, "seller-home.png"), fullPage: true });

  // The video's analytics: overview cards and the breakdown by source.
  await row.getByRole("link", { name: "Spring VSL" }).click();
  await page.getByRole("heading", { name: "Seller overview" }).waitFor();
  const stat = (label: string) => page.locator(`[data-overview="${label}"]`).textContent();
  await page.locator('[data-overview="Impressions"]').waitFor();
  expect(await stat("Impressions")).toBe("3");
  expect(await stat("True plays")).toBe("2");
  expect(await stat("Play rate")).toBe("66.7 %");
  expect(await stat("Conversion rate")).toBe("50.00 %");
  const facebook = page.locator('[data-breakdown-value="facebook"]');
  await facebook.waitFor();
  expect(await facebook.locator("td").nth(2).textContent()).toBe("50.0 %");
  expect(await page.locator('[data-breakdown-value="direct"] td').nth(2).textContent()).toBe("100.0 %");
  await page.getByLabel("Break down by").selectOption("device");
  await page.locator('[data-breakdown-value="mobile"]').waitFor();
  expect(await page.locator('[data-breakdown-value="desktop"] .bar-num').textContent()).toBe("1");
  await page.getByRole("heading", { name: "Buyers against everyone else" }).waitFor();

  // Ad spend: $60 on facebook today makes ROAS 2×.
  await page.getByLabel("Source").fill("facebook");
  await page.getByLabel("Amount").fill("60");
  await page.getByRole("button", { name: "Save ad spend" }).click();
  await page.getByText(/Saved 60 USD for facebook/).waitFor();
  await until(async () => (await page.locator('[data-currency="USD"] td').nth(7).textContent()) === "2×", 10_000, 100);
  expect(await page.locator('[data-currency="USD"] td').nth(6).textContent()).toBe("$60.00");
  await page.screenshot({ path: join(ARTIFACTS, "seller-analytics.png"), fullPage: true });

  // A smart-autoplay video: its plays start by unmuting (`unmute` events, no `play`). The chart counts them as the cards do.
  const vsl = ((await (await api("/videos", { title: "Autoplay VSL" })).json()) as { video: { id: number; code: string } }).video;
  const autoplayed = async (session: string, unmuted: boolean) => {
    const now = Date.now();
    await collect(vsl.code, session, DESKTOP, [
      { type: "load", t: now - 5000, video_time: 0, page_host: "shop.example", page_path: "/vsl" },
      { type: "autoplay", t: now - 4900, video_time: 0 },
      ...(unmuted ? [{ type: "unmute", t: now - 3000, video_time: 2 }] : []),
      { type: "watched", t: now - 1000, video_time: 0, from_s: 0, to_s: 4, duration_s: 60 },
    ]);
  };
  await autoplayed("vsl-1", true);
  await autoplayed("vsl-2", true);
  await autoplayed("vsl-3", false);
  await page.goto(`${base}/dashboard/videos/${vsl.id}/analytics`);
  await page.locator('[data-overview="True plays"]').waitFor();
  expect(await stat("True plays")).toBe("2");
  expect(await page.locator('[data-stat="Plays"]').textContent()).toBe("2");
  // The page says which figures are estimates (distinct viewers are not) and how fresh they are.
  expect(await stat("Unique viewers")).toBe("3");
  expect(await page.locator("[data-freshness]").textContent()).toContain("exact except the startup times of large groups");
  await page.locator("[data-plays-total]").waitFor();
  expect(await page.locator("[data-plays-total]").getAttribute("data-plays-total")).toBe("2");
  expect(errors).toEqual([]);
}, 120_000);
