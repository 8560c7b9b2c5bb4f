/**
 * Dashboard accounts (README "The dashboard"): email and password into a cookie
 * session, CSRF on every change, roles mapped onto token scopes, invites by link,
 * removal, sign-out everywhere, the sign-in back-off per address and account, and
 * the audit list.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, testApp, UNLIMITED, type TestApp, type TestResponse, type TestWorkspace } from "../helpers/app.ts";
import { getEngines } from "../helpers/engines.ts";
import { connectPostgres, migrate } from "../../server/storage/postgres.ts";
import { ensureDefaultWorkspace, ensureFirstOwner } from "../../server/bootstrap.ts";
import { fromBase32, hotp, stepAt } from "../../server/domains/accounts/totp.ts";
import { sweepAccounts } from "../../server/domains/accounts/service.ts";
import { startSmtpReceiver } from "../helpers/smtp-receiver.ts";
import { freePort } from "../helpers/server-process.ts";

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
const PASSWORD = "plum orchard sunrise";

/** A browser of one client address: keeps the session cookie and the CSRF token as the dashboard does. */
function client(ip: string) {
  let cookie: string | undefined;
  let csrf: string | undefined;
  const call = async (method: string, path: string, body?: unknown, opts: { csrf?: boolean } = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { "X-Forwarded-For": ip };
    if (cookie) headers.Cookie = cookie;
    if (csrf && opts.csrf !== false && method !== "GET") headers["X-CSRF-Token"] = csrf;
    const res = await t.call(method, path, { body, headers });
    const set = res.headers.get("set-cookie");
    if (set) cookie = set.split(";")[0]!.endsWith("=") ? undefined : set.split(";")[0];
    if (res.status === 200 && res.body?.csrf_token) csrf = res.body.csrf_token;
    return res;
  };
  return {
    call,
    signIn: (email: string, password = PASSWORD) => call("POST", "/account/v1/sign-in", { email, password }),
    get cookie() {
      return cookie;
    },
    set cookie(value: string | undefined) {
      cookie = value;
    },
  };
}

const email = (name: string) => `${name}.${crypto.randomUUID().slice(0, 8)}@shop.example`;

/** `POST /admin/v1/users`; a null password lets the server generate one. */
async function createUser(address: string, workspaceId: number, role: string, password: string | null = PASSWORD) {
  const res = await t.call("POST", "/admin/v1/users", {
    token: ADMIN_KEY,
    body: { email: address, password: password ?? undefined, workspace_id: workspaceId, role },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A second app whose clock the test moves by hand (`clock.now += ms`), for expiry and one-time codes. */
async function appOnAClock() {
  const clock = { now: Date.now() };
  const timed = await testApp({ fixturePlayer: true, config: { ...UNLIMITED, trustProxy: true }, clock: { now: () => clock.now } });
  return { timed, clock };
}

/** A new user of `workspaceId` with `role`, signed in from its own client at `ip`. */
async function signedInUser(name: string, workspaceId: number, role: string, ip: string) {
  const address = email(name);
  const made = await createUser(address, workspaceId, role);
  const browser = client(ip);
  await browser.signIn(address);
  return { address, made, browser };
}

beforeAll(async () => {
  t = await testApp({ fixturePlayer: true, config: { ...UNLIMITED, trustProxy: true } });
  ws = await t.workspace();
  other = await t.workspace();
});

describe("accounts made by the operator", () => {
  test("a weak password or a taken email is a 422 beside the field, and nothing is made", async () => {
    const address = email("weak");
    const short = await t.call("POST", "/admin/v1/users", { token: ADMIN_KEY, body: { email: address, password: "short", workspace_id: ws.id } });
    expect(short.status).toBe(422);
    expect(short.body.errors.password[0]).toContain("at least 10");
    const common = await t.call("POST", "/admin/v1/users", { token: ADMIN_KEY, body: { email: address, password: "qwertyuiop", workspace_id: ws.id } });
    expect(common.body.errors.password[0]).toContain("most common");
    expect((await client("192.0.2.1").signIn(address, "qwertyuiop")).status).toBe(401);
    await createUser(address, ws.id, "owner");
    const again = await t.call("POST", "/admin/v1/users", { token: ADMIN_KEY, body: { email: address.toUpperCase(), password: PASSWORD } });
    expect(again.body.errors.email[0]).toContain("already exists");
    const bad = await t.call("POST", "/admin/v1/users", { token: ADMIN_KEY, body: { email: "not an email", password: PASSWORD } });
    expect(bad.body.errors.email[0]).toContain("email address");
  });

  test("without a password one is generated, answered once, and signs in", async () => {
    const address = email("generated");
    const made = await createUser(address, ws.id, "editor", null);
    expect(made.password).toHaveLength(20);
    expect((await client("192.0.2.2").signIn(address, made.password)).status).toBe(200);
  });
});

describe("sessions", () => {
  test("sign-in sets an HttpOnly, SameSite=Lax cookie and /me names the workspaces and roles", async () => {
    const address = email("owner");
    await createUser(address, ws.id, "owner");
    const browser = client("192.0.2.10");
    const wrong = await browser.signIn(address, "plum orchard sunset");
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("INVALID_CREDENTIALS");
    const res = await browser.signIn(address.toUpperCase());
    expect(res.status).toBe(200);
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^fl_session=fls_[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
    const me = await browser.call("GET", "/account/v1/me");
    expect(me.body.user.email).toBe(address);
    expect(me.body.workspaces).toEqual([expect.objectContaining({ id: ws.id, role: "owner" })]);
  });

  test("the cookie is Secure when the dashboard is served over https", async () => {
    const secure = await testApp({ fixturePlayer: true, publicUrl: "https://video.shop.example" });
    const address = email("secure");
    await secure.call("POST", "/admin/v1/users", { token: ADMIN_KEY, body: { email: address, password: PASSWORD } });
    const res = await secure.call("POST", "/account/v1/sign-in", { body: { email: address, password: PASSWORD } });
    expect(res.headers.get("set-cookie")).toEndWith("; Secure");
  });

  test("signing in again replaces the session: the cookie held before no longer works", async () => {
    const { address, browser } = await signedInUser("rotate", ws.id, "analyst", "192.0.2.11");
    const before = browser.cookie;
    await browser.signIn(address);
    expect(browser.cookie).not.toBe(before);
    const stale = await t.call("GET", "/account/v1/me", { headers: { Cookie: before! } });
    expect(stale.status).toBe(401);
    expect((await browser.call("GET", "/account/v1/me")).status).toBe(200);
  });

  test("a change without the session's CSRF token is refused and changes nothing", async () => {
    const { browser } = await signedInUser("csrf", ws.id, "owner", "192.0.2.12");
    const tokensBefore = (await t.call("GET", `/admin/v1/workspaces/${ws.id}/tokens`, { token: ADMIN_KEY })).body.tokens.length;
    const refused = await browser.call("POST", `/account/v1/workspaces/${ws.id}/api-token`, undefined, { csrf: false });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("CSRF_REJECTED");
    const forged = await browser.call("POST", `/admin/v1/workspaces/${ws.id}/tokens`, { name: "x", scopes: ["videos:read"] }, { csrf: false });
    expect(forged.body.error.code).toBe("CSRF_REJECTED");
    expect((await browser.call("POST", "/account/v1/sign-out", undefined, { csrf: false })).status).toBe(403);
    expect((await t.call("GET", `/admin/v1/workspaces/${ws.id}/tokens`, { token: ADMIN_KEY })).body.tokens.length).toBe(tokensBefore);
    expect((await browser.call("GET", "/account/v1/me")).status).toBe(200);
  });

  test("sign-out everywhere ends every session and revokes the API tokens they minted", async () => {
    const address = email("everywhere");
    await createUser(address, ws.id, "editor");
    const laptop = client("192.0.2.13");
    const phone = client("192.0.2.14");
    await laptop.signIn(address);
    await phone.signIn(address);
    const minted = await phone.call("POST", `/account/v1/workspaces/${ws.id}/api-token`);
    expect(minted.status).toBe(201);
    expect((await t.call("GET", "/api/v1/videos", { token: minted.body.secret })).status).toBe(200);
    const out = await laptop.call("POST", "/account/v1/sign-out-everywhere");
    expect(out.body).toEqual({ signed_out: true, sessions: 2 });
    expect((await phone.call("GET", "/account/v1/me")).status).toBe(401);
    expect((await laptop.call("GET", "/account/v1/me")).status).toBe(401);
    expect((await t.call("GET", "/api/v1/videos", { token: minted.body.secret })).status).toBe(401);
  });
});

describe("roles", () => {
  test("each role's API token carries its scopes; an analyst reads but cannot write", async () => {
    const { browser } = await signedInUser("analyst", ws.id, "analyst", "192.0.2.20");
    const minted = await browser.call("POST", `/account/v1/workspaces/${ws.id}/api-token`);
    expect(minted.body.role).toBe("analyst");
    expect(minted.body.token.scopes.sort()).toEqual(["analytics:read", "videos:read"]);
    expect((await t.call("GET", "/api/v1/videos", { token: minted.body.secret })).status).toBe(200);
    const write = await t.call("POST", "/api/v1/videos", { token: minted.body.secret, body: { title: "Nope" } });
    expect(write.status).toBe(403);
  });

  test("settings an owner keeps (tokens, integrations) refuse an analyst and an editor; an editor deploys", async () => {
    const editor = client("192.0.2.21");
    const analyst = client("192.0.2.22");
    const [e, a] = [email("editor"), email("analyst")];
    await createUser(e, ws.id, "editor");
    await createUser(a, ws.id, "analyst");
    await editor.signIn(e);
    await analyst.signIn(a);
    for (const browser of [editor, analyst]) {
      const tokens = await browser.call("GET", `/admin/v1/workspaces/${ws.id}/tokens`);
      expect(tokens.status).toBe(403);
      expect(tokens.body.error).toMatchObject({ code: "INSUFFICIENT_ROLE", required: "owner" });
      expect((await browser.call("PUT", `/admin/v1/workspaces/${ws.id}/integrations/stripe`, { browser_fallback: true })).status).toBe(403);
    }
    const video = await t.createVideo(ws, { title: "Deployed by an editor" });
    const deploy = `/admin/v1/workspaces/${ws.id}/videos/${video.id}/deploy`;
    expect((await analyst.call("POST", deploy, { style_options: { main_color: "#112233" } })).status).toBe(403);
    const deployed = await editor.call("POST", deploy, { style_options: { main_color: "#112233" } });
    expect(deployed.status, deployed.text).toBe(200);
    // Operator-only routes never take a session.
    expect((await editor.call("GET", "/admin/v1/workspaces")).status).toBe(401);
  });

  test("a workspace the user is not a member of is a 404, whatever the role elsewhere", async () => {
    const { browser } = await signedInUser("outsider", ws.id, "owner", "192.0.2.23");
    expect((await browser.call("POST", `/account/v1/workspaces/${other.id}/api-token`)).status).toBe(404);
    expect((await browser.call("GET", `/admin/v1/workspaces/${other.id}/tokens`)).status).toBe(404);
    expect((await browser.call("GET", `/account/v1/workspaces/${other.id}/members`)).status).toBe(404);
    const foreign = await other.mint(["videos:read"]);
    expect((await browser.call("DELETE", `/admin/v1/tokens/${foreign.id}`)).status).toBe(404);
    expect((await t.call("GET", "/api/v1/videos", { token: foreign.secret })).status).toBe(200);
  });
});

describe("invites and the team", () => {
  test("an owner invites by link; the invitee picks a password, joins with the role, and can be removed", async () => {
    const ownerEmail = email("team-owner");
    await createUser(ownerEmail, ws.id, "owner");
    const owner = client("192.0.2.30");
    await owner.signIn(ownerEmail);
    const invitee = email("invitee");
    const refused = await owner.call("POST", `/account/v1/workspaces/${ws.id}/invites`, { email: invitee, role: "boss" });
    expect(refused.status).toBe(422);
    const invited = await owner.call("POST", `/account/v1/workspaces/${ws.id}/invites`, { email: invitee, role: "analyst" });
    expect(invited.status).toBe(201);
    expect(invited.body.url).toStartWith("http://127.0.0.1:8080/dashboard/join#fli_");
    const token = invited.body.url.split("#")[1];
    expect((await owner.call("GET", `/account/v1/workspaces/${ws.id}/members`)).body.invites).toEqual([
      expect.objectContaining({ email: invitee, role: "analyst" }),
    ]);

    const analyst = client("192.0.2.31");
    const weak = await analyst.call("POST", "/account/v1/invites/accept", { token, password: "1234567890" });
    expect(weak.status).toBe(422);
    const joined = await analyst.call("POST", "/account/v1/invites/accept", { token, password: PASSWORD });
    expect(joined.status, joined.text).toBe(200);
    expect(joined.body.user.email).toBe(invitee);
    expect((await analyst.call("GET", "/account/v1/me")).body.workspaces).toEqual([expect.objectContaining({ id: ws.id, role: "analyst" })]);
    expect((await client("192.0.2.32").call("POST", "/account/v1/invites/accept", { token, password: PASSWORD })).status).toBe(404);
    // An analyst cannot see or change the team.
    expect((await analyst.call("GET", `/account/v1/workspaces/${ws.id}/members`)).status).toBe(403);
    expect((await analyst.call("POST", `/account/v1/workspaces/${ws.id}/invites`, { email: email("x"), role: "owner" })).status).toBe(403);

    const team = (await owner.call("GET", `/account/v1/workspaces/${ws.id}/members`)).body;
    const member = team.members.find((m: { email: string }) => m.email === invitee);
    expect(member.role).toBe("analyst");
    const apiToken = (await analyst.call("POST", `/account/v1/workspaces/${ws.id}/api-token`)).body.secret;
    expect((await owner.call("DELETE", `/account/v1/workspaces/${ws.id}/members/${member.user_id}`)).body).toEqual({ removed: true });
    expect((await t.call("GET", "/api/v1/videos", { token: apiToken })).status).toBe(401);
    expect((await analyst.call("GET", "/account/v1/me")).body.workspaces).toEqual([]);
    expect((await analyst.call("POST", `/account/v1/workspaces/${ws.id}/api-token`)).status).toBe(404);

    const audit = (await owner.call("GET", `/account/v1/workspaces/${ws.id}/audit`)).body.entries.map(
      (e: { action: string; actor: string }) => `${e.actor} ${e.action}`,
    );
    expect(audit).toEqual(expect.arrayContaining([`${ownerEmail} member.invited`, `${invitee} member.joined`, `${ownerEmail} member.removed`]));
  });

  test("the last owner cannot be removed", async () => {
    const solo = await t.workspace();
    const { made, browser: owner } = await signedInUser("solo", solo.id, "owner", "192.0.2.33");
    const res = await owner.call("DELETE", `/account/v1/workspaces/${solo.id}/members/${made.user.id}`);
    expect(res.status).toBe(422);
    expect((await owner.call("GET", "/account/v1/me")).body.workspaces).toHaveLength(1);
  });
});

describe("guessing passwords", () => {
  test("an address that keeps guessing is locked out with a growing wait, while the owner signs in from elsewhere", async () => {
    const address = email("target");
    await createUser(address, ws.id, "owner");
    const attacker = client("203.0.113.66");
    for (let i = 1; i <= 4; i++) expect((await attacker.signIn(address, `guess number ${i}`)).status).toBe(401);
    const locked = await attacker.signIn(address, "guess number 5");
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe("RATE_LIMITED");
    expect(Number(locked.headers.get("retry-after"))).toBe(30);
    // Even the right password waits out the lock from that address.
    expect((await attacker.signIn(address)).status).toBe(429);
    const owner = client("198.51.100.7");
    expect((await owner.signIn(address)).status).toBe(200);

    const audit = (await owner.call("GET", `/account/v1/workspaces/${ws.id}/audit`)).body.entries;
    expect(audit.filter((e: { actor: string; action: string }) => e.actor === address && e.action === "sign_in.failed")).toHaveLength(5);
  });
});

describe("the first owner", () => {
  test("the first start makes one owner of the Default workspace, even when two processes start at once, and prints the password once", async () => {
    const db = await (await getEngines()).freshDatabase();
    const sql = connectPostgres(db.url, { max: 4 });
    try {
      await migrate(sql);
      const first = await testApp({ sql, fixturePlayer: true, config: { ownerEmail: "founder@shop.example" } });
      const second = await testApp({ sql, fixturePlayer: true, config: { ownerEmail: "founder@shop.example" } });
      await ensureDefaultWorkspace(first.deps);
      const made = (await Promise.all([ensureFirstOwner(first.deps), ensureFirstOwner(second.deps)])).filter(Boolean);
      expect(made).toHaveLength(1);
      expect(await ensureFirstOwner(first.deps)).toBeUndefined();
      const res = await first.call("POST", "/account/v1/sign-in", { body: { email: "founder@shop.example", password: made[0]!.password } });
      expect(res.status).toBe(200);
      const me = await first.call("GET", "/account/v1/me", { headers: { Cookie: res.headers.get("set-cookie")!.split(";")[0]! } });
      expect(me.body.workspaces).toEqual([expect.objectContaining({ name: "Default", role: "owner" })]);
    } finally {
      await sql.end({ timeout: 2 }).catch(() => {});
      await db.drop();
    }
  }, 60_000);
});

describe("two-factor sign-in", () => {
  test("an app's code (each once) or a recovery code (each once) is asked after the password, until it is turned off", async () => {
    const { timed, clock } = await appOnAClock();
    const address = email("two-factor");
    await timed.call("POST", "/admin/v1/users", { token: ADMIN_KEY, body: { email: address, password: PASSWORD } });
    const outer = t;
    t = timed;
    try {
      const browser = client("192.0.2.40");
      await browser.signIn(address);
      const { secret } = (await browser.call("POST", "/account/v1/two-factor/setup")).body;
      const codeAt = (ms: number) => hotp(fromBase32(secret), stepAt(ms));
      expect((await browser.call("POST", "/account/v1/two-factor/enable", { code: codeAt(clock.now + 300_000) })).status).toBe(422);
      // Set up but not confirmed: the password alone still signs in.
      expect((await client("192.0.2.41").signIn(address)).status).toBe(200);
      const enabled = await browser.call("POST", "/account/v1/two-factor/enable", { code: codeAt(clock.now) });
      expect(enabled.status).toBe(200);
      const recovery: string[] = enabled.body.recovery_codes;
      expect(recovery).toHaveLength(10);
      expect((await browser.call("GET", "/account/v1/me")).body.two_factor).toBe(true);

      const phone = client("192.0.2.42");
      const asked = await phone.signIn(address);
      expect(asked.status).toBe(401);
      expect(asked.body.error.code).toBe("TWO_FACTOR_REQUIRED");
      expect(asked.headers.get("set-cookie")).toBeNull();
      // The code that confirmed the set-up is spent; the next one works, once.
      expect((await phone.call("POST", "/account/v1/sign-in", { email: address, password: PASSWORD, code: codeAt(clock.now) })).status).toBe(401);
      clock.now += 30_000;
      expect((await phone.call("POST", "/account/v1/sign-in", { email: address, password: PASSWORD, code: codeAt(clock.now) })).status).toBe(200);
      expect((await client("192.0.2.43").call("POST", "/account/v1/sign-in", { email: address, password: PASSWORD, code: codeAt(clock.now) })).status).toBe(
        401,
      );
      // A recovery code, typed any way, works once.
      const typed = recovery[0]!.toUpperCase().replace(/-/g, " ");
      expect((await client("192.0.2.44").call("POST", "/account/v1/sign-in", { email: address, password: PASSWORD, code: typed })).status).toBe(200);
      expect((await client("192.0.2.45").call("POST", "/account/v1/sign-in", { email: address, password: PASSWORD, code: recovery[0] })).status).toBe(401);

      expect((await browser.call("POST", "/account/v1/two-factor/disable", { password: "not my password" })).status).toBe(422);
      expect((await browser.call("POST", "/account/v1/two-factor/disable", { password: PASSWORD })).body).toEqual({ enabled: false });
      expect((await client("192.0.2.46").signIn(address)).status).toBe(200);
    } finally {
      t = outer;
    }
  }, 60_000);
});

describe("the sweep", () => {
  test("ended sessions and lapsed invites go; a live session stays", async () => {
    const { timed, clock } = await appOnAClock();
    const address = email("sweep");
    await timed.call("POST", "/admin/v1/users", { token: ADMIN_KEY, body: { email: address, password: PASSWORD, workspace_id: ws.id, role: "owner" } });
    const signIn = () => timed.call("POST", "/account/v1/sign-in", { body: { email: address, password: PASSWORD } });
    const old = (await signIn()).headers.get("set-cookie")!.split(";")[0]!;
    const csrf = (await timed.call("GET", "/account/v1/me", { headers: { Cookie: old } })).body.csrf_token;
    const invited = await timed.call("POST", `/account/v1/workspaces/${ws.id}/invites`, {
      headers: { Cookie: old, "X-CSRF-Token": csrf },
      body: { email: email("late"), role: "analyst" },
    });
    const token = invited.body.url.split("#")[1];
    const rows = async () =>
      (await timed.deps.sql`SELECT count(*)::int AS n FROM user_sessions s JOIN users u ON u.id = s.user_id WHERE u.email = ${address}`)[0]!.n;
    clock.now += 8 * 86_400_000;
    const fresh = (await signIn()).headers.get("set-cookie")!.split(";")[0]!;
    expect(await rows()).toBe(2);
    expect(await sweepAccounts(timed.deps)).toBeGreaterThanOrEqual(2);
    expect(await rows()).toBe(1);
    expect((await timed.call("GET", "/account/v1/me", { headers: { Cookie: fresh } })).status).toBe(200);
    expect((await timed.call("GET", "/account/v1/me", { headers: { Cookie: old } })).status).toBe(401);
    const late = await timed.call("POST", "/account/v1/invites/accept", { body: { token, password: PASSWORD } });
    expect(late.status).toBe(404);
  }, 60_000);
});

describe("invites by mail", () => {
  test("with SMTP_URL set the link is mailed to the invitee (and still shown); an SMTP server away leaves the link to copy", async () => {
    const smtp = startSmtpReceiver({ name: "mailer", password: "s3cret" });
    try {
      const mailing = await testApp({ fixturePlayer: true, config: { ...UNLIMITED, smtpUrl: smtp.url, smtpFrom: "Frameline <team@shop.example>" } });
      const owner = email("mailing-owner");
      await mailing.call("POST", "/admin/v1/users", { token: ADMIN_KEY, body: { email: owner, password: PASSWORD, workspace_id: ws.id, role: "owner" } });
      const signedIn = await mailing.call("POST", "/account/v1/sign-in", { body: { email: owner, password: PASSWORD } });
      const headers = { Cookie: signedIn.headers.get("set-cookie")!.split(";")[0]!, "X-CSRF-Token": signedIn.body.csrf_token };
      const invitee = email("mailed");
      const invited = await mailing.call("POST", `/account/v1/workspaces/${ws.id}/invites`, { headers, body: { email: invitee, role: "editor" } });
      expect(invited.body.emailed).toBe(true);
      expect(smtp.mails).toHaveLength(1);
      const [mail] = smtp.mails;
      expect(mail).toMatchObject({ from: "team@shop.example", to: [invitee], auth: "mailer" });
      expect(mail!.data).toContain(`Subject: You are invited to Frameline`);
      expect(mail!.data).toContain(`${owner} invited you`);
      expect(mail!.data).toContain(invited.body.url);

      const away = await testApp({ fixturePlayer: true, config: { ...UNLIMITED, smtpUrl: `smtp://127.0.0.1:${await freePort()}` } });
      const again = await away.call("POST", `/account/v1/workspaces/${ws.id}/invites`, { headers, body: { email: email("unmailed"), role: "analyst" } });
      expect(again.status).toBe(201);
      expect(again.body.emailed).toBe(false);
      expect(again.body.url).toContain("/dashboard/join#fli_");
      expect(smtp.mails).toHaveLength(1);
    } finally {
      smtp.stop();
    }
  }, 60_000);
});
