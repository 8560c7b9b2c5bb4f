/**
 * Accounts in real Chromium against the real server (`bun server/main.ts`, embedded
 * engines, TRUST_PROXY so each browser context is its own client address): the first
 * owner signs in with the password printed at first start, invites an analyst by
 * link; the analyst joins in another context, reads analytics and is refused
 * Settings and the team; a change without the CSRF header is refused; guessing the
 * owner's password from one address gets locked out while the owner still signs
 * in; the owner turns on two-factor sign-in and signs in with a recovery code;
 * axe-core finds no serious violation on the new pages.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser, tempDir, until } from "../helpers/browser.ts";
import { firstStart, startServer, type ServerProcess } from "../helpers/server-process.ts";
import { axeProblems } from "../helpers/axe.ts";
import { fromBase32, hotp, stepAt } from "../../server/domains/accounts/totp.ts";

const OWNER = "owner@shop.example";
const ANALYST = "analyst@shop.example";
const ANALYST_PASSWORD = "plum orchard sunrise";

let dir: string;
let server: ServerProcess | undefined;
let browser: Browser | undefined;
let ownerPassword: string;
let videoId: number;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  dir = tempDir("fl-accounts-");
  [server, browser] = await Promise.all([startServer(dir, { OWNER_EMAIL: OWNER, TRUST_PROXY: "1" }), launchBrowser()]);
  // What the operator reads on the console at first start.
  const printed = await firstStart(dir);
  expect(printed.email).toBe(OWNER);
  ownerPassword = printed.password;
  const token = printed.token;
  const created = await fetch(`${server.base}/api/v1/videos`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ title: "Spring launch" }),
  });
  videoId = ((await created.json()) as { video: { id: number } }).video.id;
}, 150_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A browser of its own (cookies, storage) at a client address of its own. */
async function person(ip: string): Promise<Page> {
  // The dashboard's CSP forbids injected scripts; the context bypasses it to load axe-core.
  const context = await browser!.newContext({ bypassCSP: true, extraHTTPHeaders: { "X-Forwarded-For": ip }, viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  return context.newPage();
}

const found: Record<string, string[]> = {};
async function axe(page: Page, name: string) {
  await page.locator("h1").first().waitFor();
  await page.waitForLoadState("networkidle");
  const problems = await axeProblems(page);
  if (problems.length) found[name] = problems;
}

async function logIn(page: Page, email: string, password: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
}

test("the owner invites an analyst, who reads analytics and is refused settings, tokens and the team", async () => {
  const owner = await person("198.51.100.7");
  await owner.goto(`${server!.base}/dashboard`);
  await axe(owner, "sign-in");
  await logIn(owner, OWNER, "not the password at all");
  await expect(owner.getByRole("alert").textContent()).resolves.toContain("email or the password is wrong");
  await logIn(owner, OWNER, ownerPassword);
  const pick = owner.getByRole("button", { name: /Default.*your role: owner/ });
  await pick.waitFor();
  await axe(owner, "workspaces");
  // The session is an HttpOnly cookie: the page's script cannot read it.
  expect(await owner.evaluate(() => document.cookie)).toBe("");
  await pick.click();
  await owner.waitForURL(/\/dashboard\/videos$/);
  const nav = owner.getByRole("navigation", { name: "Main" });
  await nav.getByRole("link", { name: "Team" }).click();
  await owner.getByRole("heading", { name: "Audit list" }).waitFor();
  await owner.getByLabel("Their email").fill(ANALYST);
  await owner.getByLabel("Role").selectOption("analyst");
  await owner.getByRole("button", { name: "Create invite link" }).click();
  const link = await owner.getByRole("textbox", { name: "Invite link" }).inputValue();
  expect(link).toStartWith(`${server!.base}/dashboard/join#fli_`);
  await owner.getByText(`${ANALYST} as analyst`).waitFor();
  await axe(owner, "team");

  const analyst = await person("198.51.100.8");
  await analyst.goto(link);
  await analyst.getByRole("heading", { name: "Join your team on Frameline" }).waitFor();
  await axe(analyst, "join");
  await analyst.getByLabel("Password").fill("1234567890");
  await analyst.getByRole("button", { name: "Join" }).click();
  await expect(analyst.locator("[data-field-error=join-password]").textContent()).resolves.toContain("most common");
  await analyst.getByLabel("Password").fill(ANALYST_PASSWORD);
  await analyst.getByRole("button", { name: "Join" }).click();
  await analyst.getByRole("button", { name: /Default.*your role: analyst/ }).click();
  await analyst.waitForURL(/\/dashboard\/videos$/);
  const links = await analyst.getByRole("navigation", { name: "Main" }).getByRole("link").allTextContents();
  expect(links).toEqual(["Home", "Videos", "Analytics", "Split tests"]);

  // Analytics: the seller overview of the owner's video.
  await analyst.goto(`${server!.base}/dashboard/videos/${videoId}/analytics`);
  await analyst.getByRole("heading", { name: "Seller overview" }).waitFor();
  await analyst.getByText("Impressions", { exact: true }).first().waitFor();
  expect(await analyst.getByRole("alert").count()).toBe(0);

  // Settings (API tokens) and the team: the server refuses, and the page says why.
  await analyst.goto(`${server!.base}/dashboard/settings/tokens`);
  await expect(analyst.getByRole("alert").first().textContent()).resolves.toContain("needs the owner role; you are an analyst");
  expect(await analyst.getByRole("row").count()).toBe(0);
  await analyst.goto(`${server!.base}/dashboard/team`);
  await expect(analyst.getByRole("alert").first().textContent()).resolves.toContain("needs the owner role");
  // A token mint straight through the operator route, with the session and its CSRF token: refused too.
  const minted = await analyst.evaluate(async () => {
    const { csrf } = JSON.parse(sessionStorage.getItem("fl.account")!);
    const res = await fetch("/admin/v1/workspaces/1/tokens", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({ name: "mine", scopes: ["videos:write"] }),
    });
    return { status: res.status, body: await res.json() };
  });
  expect(minted.status).toBe(403);
  expect(minted.body.error.code).toBe("INSUFFICIENT_ROLE");

  // The owner sees the analyst in the team and their sign-in in the audit list.
  await owner.reload();
  await owner.getByRole("cell", { name: ANALYST }).first().waitFor();
  await owner.getByRole("cell", { name: "member.joined" }).waitFor();
  expect(found).toEqual({});
}, 120_000);

/** The owner signed in from `ip`, at the workspace picker. */
async function ownerIn(ip: string): Promise<Page> {
  const owner = await person(ip);
  await owner.goto(`${server!.base}/dashboard`);
  await logIn(owner, OWNER, ownerPassword);
  await owner.getByRole("button", { name: /Default.*your role: owner/ }).waitFor();
  return owner;
}

test("a change without the session's CSRF token is refused; with it, it goes through", async () => {
  const owner = await ownerIn("198.51.100.9");
  const answers = await owner.evaluate(async () => {
    const post = (headers: Record<string, string>) => fetch("/account/v1/workspaces/1/api-token", { method: "POST", headers }).then((r) => r.status);
    const { csrf } = JSON.parse(sessionStorage.getItem("fl.account")!);
    return { without: await post({}), wrong: await post({ "X-CSRF-Token": "x".repeat(43) }), right: await post({ "X-CSRF-Token": csrf }) };
  });
  expect(answers).toEqual({ without: 403, wrong: 403, right: 201 });
}, 60_000);

test("guessing the owner's password from one address is locked out, and the owner still signs in", async () => {
  const attacker = await person("203.0.113.66");
  await attacker.goto(`${server!.base}/dashboard`);
  for (let i = 1; i <= 4; i++) {
    await logIn(attacker, OWNER, `guess number ${i} here`);
    await until(async () => (await attacker.getByRole("alert").textContent())?.includes("wrong"), 10_000);
    await attacker.getByRole("button", { name: "Log in" }).waitFor();
  }
  await logIn(attacker, OWNER, "guess number 5 here");
  await until(async () => (await attacker.getByRole("alert").textContent())?.includes("Too many failed sign-ins"), 10_000);
  // The right password does not get through from that address while the lock runs.
  await logIn(attacker, OWNER, ownerPassword);
  await until(async () => (await attacker.getByRole("alert").textContent())?.includes("Too many failed sign-ins"), 10_000);
  expect(attacker.url()).toEndWith("/dashboard");

  await ownerIn("198.51.100.7");
}, 60_000);

test("the owner turns on two-factor sign-in; signing in then asks for a code, and a recovery code works", async () => {
  const owner = await ownerIn("198.51.100.10");
  await owner.getByRole("button", { name: /Default/ }).click();
  await owner.getByRole("link", { name: "Your account" }).click();
  await owner.getByRole("button", { name: "Set up two-factor sign-in" }).click();
  const secret = (await owner.locator("[data-totp-secret]").textContent())!;
  // What the authenticator app would show now.
  await owner.getByLabel("Code from the app").fill(hotp(fromBase32(secret), stepAt(Date.now())));
  await owner.getByRole("button", { name: "Turn two-factor sign-in on" }).click();
  const shown = owner.getByRole("list", { name: "Recovery codes" });
  await shown.waitFor();
  const codes = await shown.locator("li").allTextContents();
  expect(codes).toHaveLength(10);
  await owner.locator('[data-two-factor="on"]').waitFor();
  expect(await axeProblems(owner)).toEqual([]);
  await owner.getByRole("button", { name: "Sign out", exact: true }).click();

  await logIn(owner, OWNER, ownerPassword);
  const code = owner.getByLabel("Code");
  await code.waitFor();
  await code.fill("000000");
  await owner.getByRole("button", { name: "Log in" }).click();
  await until(async () => (await owner.getByRole("alert").textContent())?.includes("wrong or was used"), 10_000);
  await code.fill(codes[0]!);
  await owner.getByRole("button", { name: "Log in" }).click();
  await owner.getByRole("button", { name: /Default.*your role: owner/ }).waitFor();
}, 60_000);
