/**
 * The dashboard in real Chromium against the real server (`bun server/main.ts`
 * on embedded engines in a temp DATA_DIR): a newcomer signs in, creates a
 * workspace, mints a token, uploads a clip made by ffmpeg, waits for it to be
 * ready, deploys a new main colour, sees the preview change, plays it and
 * finds the play in Analytics. Screenshots go to test/artifacts/dashboard-*.png.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Frame, Page } from "playwright-core";
import { ROOT, launchBrowser, tempDir, until } from "../helpers/browser.ts";
import { startServer, type ServerProcess } from "../helpers/server-process.ts";

const ARTIFACTS = join(ROOT, "test/artifacts");
const NEW_COLOUR = "#e11d48";

let dir: string;
let base: string;
let adminKey: string;
let server: ServerProcess | undefined;
let browser: Browser | undefined;
let receiver: ReturnType<typeof Bun.serve> | undefined;
const hooks: unknown[] = [];

async function ffmpeg(args: string[]): Promise<void> {
  const proc = Bun.spawn(["ffmpeg", "-loglevel", "error", "-y", ...args], { stderr: "pipe" });
  if ((await proc.exited) !== 0) throw new Error("ffmpeg failed: " + (await new Response(proc.stderr).text()));
}

beforeAll(async () => {
  dir = tempDir("fl-dashboard-");
  mkdirSync(ARTIFACTS, { recursive: true });
  const [started, , , b] = await Promise.all([
    startServer(dir),
    // A 3 s 320x240 H.264/AAC clip, and a larger one (noise does not compress) to show a resumed multi-chunk upload.
    ffmpeg([
      ...`-f lavfi -i testsrc=size=320x240:rate=25 -f lavfi -i sine=frequency=440 -t 3 -c:v libx264 -preset veryfast -pix_fmt yuv420p -c:a aac -movflags +faststart`.split(
        " ",
      ),
      join(dir, "clip.mp4"),
    ]),
    ffmpeg([
      ...`-f lavfi -i testsrc=size=400x300:rate=25,noise=alls=100:allf=t -t 2 -c:v libx264 -preset ultrafast -qp 0 -pix_fmt yuv420p`.split(" "),
      join(dir, "big.mp4"),
    ]),
    launchBrowser(),
  ]);
  browser = b;
  server = started;
  ({ base, adminKey } = started);

  receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      hooks.push(await req.json().catch(() => null));
      return new Response("ok");
    },
  });
}, 150_000);

afterAll(async () => {
  await browser?.close();
  receiver?.stop(true);
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `dashboard-${name}.png`), fullPage: true });

/** The preview frame's player mount, once the player has themed it. */
async function previewColour(page: Page): Promise<string> {
  const frame = await previewFrame(page);
  const handle = await frame.waitForSelector(".frameline-player .fl-root", { timeout: 30_000 });
  return handle.evaluate((el) => getComputedStyle(el.closest(".frameline-player")!).getPropertyValue("--fl-main").trim());
}

async function previewFrame(page: Page): Promise<Frame> {
  return (await until(() => page.frames().find((f) => f.url().includes("/dashboard/preview")), 20_000))!;
}

test("a newcomer's path through the dashboard", async () => {
  const context: BrowserContext = await browser!.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  // Requests this test drops on purpose (to show a resumed upload) are the only errors allowed.
  let dropping = false;
  // Chromium logs every 4xx/5xx response; the ones this test provokes on purpose (wrong key, bad colour) are allowed once each.
  const provoked = [
    { status: 401, path: "/admin/v1/workspaces" },
    { status: 422, path: "/deploy" },
  ];
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    const text = m.text();
    const url = m.location().url;
    if (dropping && /Failed to load resource/.test(text)) return;
    const i = provoked.findIndex((p) => text.includes(`status of ${p.status}`) && url.endsWith(p.path));
    if (i >= 0) return void provoked.splice(i, 1);
    consoleErrors.push(`${text} @ ${url}`);
  });
  page.on("pageerror", (e) => consoleErrors.push(`pageerror: ${e.message}`));
  page.on("dialog", (d) => void d.accept());
  try {
    await walk(page, consoleErrors, (on) => (dropping = on));
  } catch (error) {
    await shot(page, "failure").catch(() => {});
    throw error;
  }
  await context.close();
}, 180_000);

async function walk(page: Page, consoleErrors: string[], setDropping: (on: boolean) => void): Promise<void> {
  // 1. Sign in with the admin key.
  await page.goto(`${base}/dashboard`);
  await page.getByLabel("Admin key").fill("fla_wrong");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByText("That admin key was not accepted.").waitFor();
  await page.getByLabel("Admin key").fill(adminKey);
  await shot(page, "sign-in");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/dashboard\/workspaces$/);
  expect(page.url()).not.toContain(adminKey);

  // 2. Create a workspace (the first start also made "Default").
  await page.getByRole("button", { name: /Default/ }).waitFor();
  await page.getByLabel("Workspace name").fill("E2E Studio");
  await shot(page, "workspaces");
  await page.getByRole("button", { name: "Create workspace" }).click();
  await page.waitForURL(/\/dashboard\/videos$/);
  await expect(page.getByRole("link", { name: /E2E Studio/ }).isVisible()).resolves.toBe(true);
  const workspaces = (await (await fetch(`${base}/admin/v1/workspaces`, { headers: { Authorization: `Bearer ${adminKey}` } })).json()) as {
    workspaces: { id: number; name: string }[];
  };
  const ws = workspaces.workspaces.find((w) => w.name === "E2E Studio")!;
  expect(ws).toBeDefined();

  // 3. Mint a token: shown once, works, then gone from the page.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  await page.getByRole("heading", { name: "Mint a token" }).waitFor();
  await expect(page.getByText("Send sales.").isVisible()).resolves.toBe(true); // scope descriptions from the scope table
  await page.getByLabel("Name", { exact: true }).fill("CI reader");
  await page.getByLabel(/^videos:read/).check();
  await page.getByLabel(/^analytics:read/).check();
  await page.getByLabel("Days (1 to 3650)").fill("30");
  await page.getByRole("button", { name: "Mint token" }).click();
  const secretBox = page.getByLabel("New token");
  await secretBox.waitFor();
  const secret = await secretBox.inputValue();
  expect(secret).toMatch(/^flt_[A-Za-z0-9_-]{40,}$/);
  await expect(page.getByRole("button", { name: "Copy token" }).isVisible()).resolves.toBe(true);
  await shot(page, "tokens");
  const probe = await fetch(`${base}/api/v1/videos`, { headers: { Authorization: `Bearer ${secret}` } });
  expect(probe.status).toBe(200);
  const minted = (await (await fetch(`${base}/admin/v1/workspaces/${ws.id}/tokens`, { headers: { Authorization: `Bearer ${adminKey}` } })).json()) as {
    tokens: { name: string; scopes: string[]; expires_at: string | null }[];
  };
  const ci = minted.tokens.find((t) => t.name === "CI reader")!;
  expect(ci.scopes.sort()).toEqual(["analytics:read", "videos:read"]);
  expect(Date.parse(ci.expires_at!) - Date.now()).toBeGreaterThan(29 * 86_400_000);
  await page.getByRole("button", { name: "I have copied it" }).click();
  await page.reload();
  await page.getByRole("cell", { name: "CI reader", exact: true }).waitFor();
  expect(await page.content()).not.toContain(secret);

  // Custom metrics and integrations in the same Settings area.
  await page.getByRole("link", { name: "Custom metrics" }).click();
  await page.getByLabel("Event name").fill("Add To Cart");
  await page.getByRole("button", { name: "Declare" }).click();
  await page.getByRole("list", { name: "Declared metrics" }).getByText("addtocart").waitFor();
  await shot(page, "custom-metrics");
  await page.getByRole("link", { name: "Integrations" }).click();
  await page.getByLabel("Integration name").fill("stripe");
  await page.getByRole("button", { name: "Save" }).click();
  const toggle = page.getByRole("switch", { name: /stripe/ });
  await toggle.waitFor();
  expect(await toggle.isChecked()).toBe(true);
  await toggle.uncheck();
  await page.getByText("browser fallback off").waitFor();
  await shot(page, "integrations");

  // 4. Create a video.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Videos" }).click();
  await page.getByLabel("Folder name").fill("Launch");
  await page.getByRole("button", { name: "Create folder" }).click();
  await page.getByLabel("Folder", { exact: true }).locator("option", { hasText: "Launch (0)" }).waitFor({ state: "attached" });
  await page.getByLabel("Title", { exact: true }).fill("E2E clip");
  await page.locator("#nv-folder").selectOption({ label: "Launch" });
  await page.getByRole("button", { name: "Create video" }).click();
  await page.waitForURL(/\/dashboard\/videos\/\d+$/);
  const videoId = Number(page.url().split("/").pop());

  // 5. Upload through the resumable API: init must answer (a missing uploads API fails here), progress reaches 100 %.
  await page.getByLabel("Video file").setInputFiles(join(dir, "clip.mp4"));
  const init = page.waitForResponse((r) => r.url().endsWith(`/api/v1/videos/${videoId}/upload/init`));
  await page.getByRole("button", { name: "Upload", exact: true }).click();
  expect((await init).status()).toBe(201);
  await page.locator("[data-upload-phase=done]").waitFor({ timeout: 30_000 });
  expect(await page.locator("#upload-progress").evaluate((el) => (el as HTMLProgressElement).value)).toBe(100);
  expect(await page.locator("[data-progress-pct]").first().textContent()).toBe("100 %");
  await shot(page, "upload");

  // 6. Processing progress from the status endpoint, until ready.
  await page.locator("[data-status=ready]").waitFor({ timeout: 90_000 });
  const embed = await page.getByLabel("Embed code").inputValue();
  expect(embed).toContain('class="frameline-player"');
  // docs/api.md: the player publishes itself about a minute after ready. If it is live, the preview shows the default colour first.
  const code = embed.match(/data-video="([^"]+)"/)![1];
  const published = await until(async () => (await fetch(`${base}/cdn/p/${code}.js`, { method: "HEAD" })).ok, 15_000, 500).catch(() => false);
  if (published) {
    await page.getByRole("button", { name: "Load preview", exact: true }).click();
    expect(await previewColour(page)).toBe("#2563eb");
  } else {
    console.warn("dashboard e2e: the player was not published within 15 s of ready; the preview is checked after the deploy only");
    await page.getByRole("button", { name: "Load preview", exact: true }).waitFor();
  }
  await shot(page, "video");

  // 7. Player settings: a bad colour is shown next to its field; then deploy a new main colour with a label.
  await page.getByRole("link", { name: "Player settings" }).first().click();
  const main = page.getByLabel("Main colour", { exact: true });
  await main.fill("not-a-colour");
  await page.getByRole("button", { name: "Deploy" }).click();
  const fieldError = page.locator('[data-field-error="f-style_options-main_color"]');
  await fieldError.waitFor();
  expect(await fieldError.textContent()).toContain("main_color");
  expect(await main.getAttribute("aria-invalid")).toBe("true");
  await main.fill(NEW_COLOUR);
  await page.getByLabel("Version label (optional)").fill("Rose brand");
  await page.getByRole("button", { name: "Deploy" }).click();
  await page.getByText(/Deployed: version \d+ is live/).waitFor();
  await page.getByText("Rose brand").waitFor();

  // 8. The preview shows the deployed colour.
  await until(async () => (await previewColour(page).catch(() => "")) === NEW_COLOUR, 30_000, 250);
  await shot(page, "player-settings");
  await page.evaluate(() => scrollTo(0, 0));
  await page.screenshot({ path: join(ARTIFACTS, "dashboard-overview.png") });

  // 9. Play it in the preview.
  const frame = await previewFrame(page);
  await frame.locator(".fl-big").click();
  await until(() => frame.locator("video").evaluate((v: HTMLVideoElement) => v.currentTime > 0.5 || v.ended), 30_000, 200);
  await until(() => frame.locator("video").evaluate((v: HTMLVideoElement) => v.ended), 30_000, 200);

  // Draft, a second deploy, and restoring the first version (a new live version, preview back to the first colour).
  await page.getByRole("button", { name: "Add chapter" }).click();
  await page.getByLabel("Chapter 1 start (s)").fill("1");
  await page.getByLabel("Chapter 1 title").fill("Intro");
  await page.getByRole("button", { name: "Save draft" }).click();
  await page.getByText("Draft saved. It is not live").waitFor();
  await main.fill("#0f766e");
  await page.getByLabel("Version label (optional)").fill("Teal");
  await page.getByRole("button", { name: "Deploy" }).click();
  await page.getByText("Teal", { exact: true }).waitFor();
  await until(async () => (await previewColour(page).catch(() => "")) === "#0f766e", 30_000, 250);
  await page.getByRole("button", { name: "Restore version 1" }).click();
  await page.getByText("Version restored and live.").waitFor();
  await page.getByText("Restored from version 1").waitFor();
  await until(async () => (await previewColour(page).catch(() => "")) === NEW_COLOUR, 30_000, 250);
  await until(async () => (await main.inputValue()) === NEW_COLOUR, 10_000, 100); // the form reloads the restored settings

  // A group the application API cannot set, through its form (the dashboard saves through the operator route): the preview shows it.
  await page.getByLabel("Show a headline over the poster until play").check();
  await page.getByLabel("Headline", { exact: true }).fill("Watch before it is gone");
  await page.getByRole("button", { name: "Deploy" }).click();
  await page.getByText(/Deployed: version \d+ is live/).waitFor();
  const headline = async () =>
    (await previewFrame(page))
      .locator(".fl-headline")
      .textContent({ timeout: 1_000 })
      .catch(() => "");
  await until(async () => (await headline()) === "Watch before it is gone", 30_000, 250);

  // The list forms: a timed reveal and a redirect action, added row by row and deployed (lists are saved whole).
  await page.getByRole("button", { name: "Add reveal" }).click();
  await page.getByLabel("Reveal 1 at (s)").fill("2");
  await page.getByLabel("CSS selector of the page elements").fill("#buy");
  await page.getByRole("button", { name: "Add action" }).click();
  await page.getByLabel("Action 1", { exact: true }).selectOption("redirect");
  await page.getByLabel("URL", { exact: true }).fill("https://example.com/buy");
  await page.getByLabel("At (s)", { exact: true }).fill("3");
  await page.getByLabel("Send watch progress every (s)").fill("3");
  await page.getByLabel("Title for search results").fill("Spring launch, explained");
  // A lead form at the viewer's pause, smart pause and turbo, through their forms.
  await page.getByLabel("Ask for the viewer's email").check();
  await page.getByLabel("Show it").selectOption("pause");
  await page.getByLabel("Not before (s)").fill("30");
  await page.getByLabel("Pause while the tab is hidden").check();
  await page.getByLabel("Start with the smallest picture, fetched before the viewer presses play").check();
  await page.getByRole("button", { name: "Deploy" }).click();
  const deployed = async () =>
    (
      (await (await fetch(`${base}/api/v1/videos/${videoId}/settings`, { headers: { Authorization: `Bearer ${secret}` } })).json()) as {
        settings: Record<string, any>;
      }
    ).settings;
  await until(async () => (await deployed()).timed_events_options.events.length === 1, 15_000, 250);
  const live = await deployed();
  expect(live.engagement_options.heartbeat_s).toBe(3);
  expect(live.seo_options.title).toBe("Spring launch, explained");
  expect(live.lead_form_options).toMatchObject({ enabled: true, trigger: "pause", time_s: 30 });
  expect(live.playback_options).toMatchObject({ pause_when_hidden: true, resume_when_visible: true });
  expect(live.turbo_options).toMatchObject({ enabled: true, preload_segments: 1 });
  expect(live.timed_events_options.events).toEqual([{ time_s: 2, selector: "#buy", action: "show", name: null, persist: true }]);
  expect(live.actions_options.actions).toEqual([
    { trigger: "time", time_s: 3, type: "redirect", url: "https://example.com/buy", text: null, button_text: null },
  ]);

  // Notes and a quiz through their forms: the preview lists the note and asks the question.
  await page.getByLabel("List these notes under the player").check();
  await page.getByRole("button", { name: "Add note" }).click();
  await page.getByLabel("Note 1 at (s)").fill("0.2");
  await page.locator("#f-notes_options-notes-0-text").fill("Why this matters");
  await page.getByLabel("Ask these questions").check();
  await page.getByRole("button", { name: "Add question" }).click();
  await page.getByLabel("Question 1 id").fill("q1");
  await page.getByLabel("Asked at (s)").fill("0.5");
  await page.locator("#f-quiz_options-questions-0-question").fill("Ready?");
  await page.locator("#f-quiz_options-questions-0-choices-0-text").fill("Yes");
  await page.getByRole("button", { name: "Deploy" }).click();
  await page.getByText(/Deployed: version \d+ is live/).waitFor();
  const note = async () =>
    (await previewFrame(page))
      .locator(".fl-notes li")
      .first()
      .textContent({ timeout: 1_000 })
      .catch(() => "");
  await until(async () => (await note())?.includes("Why this matters"), 30_000, 250);
  const quizFrame = await previewFrame(page);
  await quizFrame.locator(".fl-big").click();
  await quizFrame.locator(".fl-quiz[role=dialog]").waitFor({ timeout: 15_000 });
  await quizFrame.locator(".fl-quiz-choice", { hasText: "Yes" }).click();

  // 10. The play shows in Analytics. The player sends its batch on a heartbeat, and the summary is
  // computed once per minute, so first wait (with the minted read token) until the play is stored.
  await until(
    async () => {
      const r = await fetch(`${base}/api/v1/videos/${videoId}/analytics/events?event_type=play`, { headers: { Authorization: `Bearer ${secret}` } });
      return r.ok && ((await r.json()) as { events: { total: number } }).events.total >= 1;
    },
    60_000,
    500,
  );
  await page.getByRole("link", { name: "Analytics" }).last().click();
  await page.getByRole("heading", { name: "Retention" }).waitFor();
  await page.locator("[data-plays-total]").waitFor();
  expect(Number(await page.locator("[data-plays-total]").getAttribute("data-plays-total"))).toBeGreaterThanOrEqual(1);
  expect(Number(await page.locator('[data-stat="Plays"]').textContent())).toBeGreaterThanOrEqual(1);
  await page.getByLabel("Event type").selectOption("play");
  await page.getByRole("cell", { name: "play", exact: true }).first().waitFor();
  await shot(page, "analytics");

  // Export: the button waits for the export and downloads it.
  const downloading = page.waitForEvent("download", { timeout: 60_000 });
  await page.getByRole("button", { name: "Export CSV" }).click();
  const file = await (await downloading).path();
  const csv = readFileSync(file, "utf8");
  expect(csv.split("\n")[0]).toContain("event_type");
  expect(csv).toContain("play");

  // 11. Webhooks: create one to a local receiver, send a test, delete it.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Webhooks" }).click();
  await page.getByLabel("Name", { exact: true }).fill("Local receiver");
  await page.getByLabel("URL").fill(`http://127.0.0.1:${receiver!.port}/hook`);
  await page.getByLabel("video.settings.deployed").check();
  await page.getByRole("button", { name: "Create webhook" }).click();
  await page.getByRole("heading", { name: "Local receiver" }).waitFor();
  await page.getByRole("button", { name: "Send a test to Local receiver" }).click();
  await page.getByText(/Delivered: the endpoint answered 200/).waitFor({ timeout: 20_000 });
  expect(hooks.length).toBeGreaterThanOrEqual(1);
  await shot(page, "webhooks");
  await page.getByRole("button", { name: "Delete Local receiver" }).click();
  await page.getByText("No webhooks yet.").waitFor();

  // 12. A multi-chunk upload that loses its connection, then survives a reload: it resumes from the server's offset.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Videos" }).click();
  await page.getByLabel("Title", { exact: true }).fill("Resumed upload");
  await page.getByRole("button", { name: "Create video" }).click();
  await page.waitForURL(/\/dashboard\/videos\/\d+$/);
  setDropping(true);
  await page.route("**/api/v1/uploads/*", (route) =>
    route.request().method() === "PATCH" && route.request().headers()["upload-offset"] !== "0" ? route.abort("connectionreset") : route.continue(),
  );
  await page.getByLabel("Video file").setInputFiles(join(dir, "big.mp4"));
  await page.getByRole("button", { name: "Upload", exact: true }).click();
  await page.locator("[data-upload-phase=retrying]").waitFor({ timeout: 30_000 });
  const partial = Number(await page.locator("#upload-progress").evaluate((el) => (el as HTMLProgressElement).value));
  expect(partial).toBeGreaterThan(0);
  expect(partial).toBeLessThan(100);
  await page.unroute("**/api/v1/uploads/*");
  await page.reload();
  await page.getByText(/was interrupted/).waitFor();
  setDropping(false);
  await page.getByLabel("Video file").setInputFiles(join(dir, "big.mp4"));
  await page.getByRole("button", { name: "Upload", exact: true }).click();
  await page.locator("[data-upload-phase=done]").waitFor({ timeout: 60_000 });
  expect(await page.getByText("Resumed from 8.0 MB").count()).toBe(1);
  await page.locator("[data-status=processing], [data-status=ready]").first().waitFor();

  // 13. Phone width: the pages fit 375 px without sideways scrolling.
  await page.setViewportSize({ width: 375, height: 800 });
  const pages = ["/videos", `/videos/${videoId}`, `/videos/${videoId}/settings`, `/videos/${videoId}/analytics`, "/analytics"];
  for (const path of [...pages, "/settings/tokens", "/settings/metrics", "/settings/integrations", "/webhooks"]) {
    await page.goto(`${base}/dashboard${path}`);
    await page.locator("h1").first().waitFor();
    await page.waitForTimeout(300);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect({ path, overflow }).toEqual({ path, overflow: 0 });
  }
  await page.goto(`${base}/dashboard/videos`);
  await page.getByRole("link", { name: "E2E clip" }).waitFor();
  await shot(page, "phone");
  // Keyboard: the skip link is the first stop on a freshly loaded page.
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
  await page.locator("#v-folder").selectOption({ label: "Launch (1)" });
  await page.getByText("Showing 1–1 of 1").waitFor();
  expect(await page.getByRole("link", { name: "Resumed upload" }).count()).toBe(0);
  await page.locator("#v-folder").selectOption({ label: "All videos" });
  await page.getByText("Showing 1–2 of 2").waitFor();
  await page.getByLabel("Search titles").fill("Resumed");
  await page.getByText("Showing 1–1 of 1").waitFor();
  expect(await page.getByRole("link", { name: "E2E clip" }).count()).toBe(0);
  await page.getByLabel("Search titles").fill("no such title");
  await page.getByText("No videos match.").waitFor();

  expect(consoleErrors).toEqual([]);
}

test("the dashboard's pages and the operator list routes it reads", async () => {
  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${base}/admin/v1${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${adminKey}`, "Content-Type": "application/json", ...(init.headers as Record<string, string>) },
    });

  // Client routes get the app shell with a CSP; the preview page has its own; assets are immutable; unknown ones 404.
  for (const path of ["/dashboard", "/dashboard/videos/1/settings"]) {
    const res = await fetch(base + path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self';");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const html = await res.text();
    const js = html.match(/\/dashboard\/assets\/app-[\w]+\.js/)![0];
    const asset = await fetch(base + js);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toContain("immutable");
  }
  expect((await fetch(`${base}/dashboard/preview?video=1`)).headers.get("content-security-policy")).toContain("frame-ancestors 'self'");
  expect((await fetch(`${base}/dashboard/assets/nope.js`)).status).toBe(404);

  // GET custom-metrics / integrations: each workspace sees only its own rows.
  const a = ((await (await admin("/workspaces", { method: "POST", body: JSON.stringify({ name: "Lists A" }) })).json()) as { workspace: { id: number } })
    .workspace.id;
  const b = ((await (await admin("/workspaces", { method: "POST", body: JSON.stringify({ name: "Lists B" }) })).json()) as { workspace: { id: number } })
    .workspace.id;
  expect((await admin(`/workspaces/${a}/custom-metrics`, { method: "POST", body: JSON.stringify({ name: "Signed_Up" }) })).status).toBe(201);
  expect((await admin(`/workspaces/${a}/integrations/shopify`, { method: "PUT", body: JSON.stringify({ browser_fallback: true }) })).status).toBe(200);
  expect(await (await admin(`/workspaces/${a}/custom-metrics`)).json()).toEqual({ metrics: [{ name: "signed_up" }] });
  expect(await (await admin(`/workspaces/${a}/integrations`)).json()).toEqual({ integrations: [{ name: "shopify", browser_fallback: true }] });
  expect(await (await admin(`/workspaces/${b}/custom-metrics`)).json()).toEqual({ metrics: [] });
  expect(await (await admin(`/workspaces/${b}/integrations`)).json()).toEqual({ integrations: [] });
  expect((await admin("/workspaces/999999/custom-metrics")).status).toBe(404);
  expect((await admin("/workspaces/abc/integrations")).status).toBe(404);
  expect((await fetch(`${base}/admin/v1/workspaces/${a}/custom-metrics`)).status).toBe(401);
  expect((await fetch(`${base}/admin/v1/workspaces/${a}/integrations`, { headers: { Authorization: "Bearer fla_wrong" } })).status).toBe(401);
});
