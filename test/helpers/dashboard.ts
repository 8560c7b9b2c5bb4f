/**
 * The dashboard's browser tests: the app on a port with one workspace, and a Chromium,
 * started once for a test file and stopped after its last test.
 */
import { afterAll, beforeAll } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { ADMIN_KEY, appOnAPort } from "./app.ts";
import { launchBrowser } from "./browser.ts";

type AppOnAPort = Awaited<ReturnType<typeof appOnAPort>>;
export type DashboardOnAPort = AppOnAPort & { browser: Browser };

/**
 * Registers the file's beforeAll and afterAll; `seed` adds what the file's tests need to the
 * workspace before the browser starts. Read the fields inside hooks and tests, once it ran.
 */
export function dashboardOnAPort(seed?: (app: AppOnAPort) => Promise<void>): DashboardOnAPort {
  let app: AppOnAPort | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    app = await appOnAPort();
    await seed?.(app);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    app?.server.stop(true);
  });
  const started = () => {
    if (!app || !browser) throw new Error("dashboardOnAPort: read before its beforeAll ran");
    return { ...app, browser };
  };
  return {
    get server() {
      return started().server;
    },
    get t() {
      return started().t;
    },
    get ws() {
      return started().ws;
    },
    get wsName() {
      return started().wsName;
    },
    get browser() {
      return started().browser;
    },
  };
}

/** A new page signed in with the admin key, in the file's workspace, on its video list; `base` is the dashboard's URL. */
export async function signedInWithAdminKey(dash: DashboardOnAPort): Promise<{ page: Page; base: string }> {
  const page = await dash.browser.newPage();
  const base = `http://127.0.0.1:${dash.server.port}/dashboard`;
  await page.goto(base);
  await page.getByLabel("Admin key").fill(ADMIN_KEY);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: new RegExp(dash.wsName) }).click();
  await page.waitForURL(/\/dashboard\/videos$/);
  return { page, base };
}
