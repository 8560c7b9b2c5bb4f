/**
 * Accounts of the dashboard (README "The dashboard"): users, sessions, roles in a
 * workspace, invites by link and the audit list. Knows nothing of HTTP: the
 * cookie and the CSRF header are read in http/session.ts.
 */
import { randomBytes } from "node:crypto";
import type { Deps } from "../../deps.ts";
import { Errors, fail, validation } from "../../errors.ts";
import { consume } from "../../http/rate-limit.ts";
import { sha256Hex } from "../../http/tokens.ts";
import { createToken, revokeToken } from "../workspaces/service.ts";
import { atLeast, Roles, type Role } from "../../../contract/roles.ts";
import { hashPassword, passwordProblems, verifyPassword } from "./passwords.ts";
import { lockFor, lockoutKey } from "./lockout.ts";
import { newRecoveryCodes, newSecret, normaliseRecoveryCode, otpauthUrl, verifyTotp } from "./totp.ts";
import * as repo from "./repo.ts";
import type { Db } from "../../storage/postgres.ts";

export type { SessionRow, MemberRow, InviteRow, AuditRow, MembershipRow } from "./repo.ts";
export { findRole, listMemberships, listMembers, listAudit, countUsers } from "./repo.ts";

export const SESSION_MS = 7 * 86_400_000;
export const INVITE_MS = 7 * 86_400_000;
/** Sign-in attempts a client address may make a minute, whatever the accounts. */
const PER_IP = { name: "sign-ins", limit: 30, windowMs: 60_000 };
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,189}$/;

type AccountDeps = Pick<Deps, "sql" | "clock">;

export interface Actor {
  userId: number;
  email: string;
}

const now = (deps: Pick<Deps, "clock">) => new Date(deps.clock.now());
const secret = (prefix: string) => prefix + randomBytes(32).toString("base64url");

/** The email as stored: trimmed; 422 when it is not an address. */
export function normaliseEmail(email: string): string {
  const trimmed = email.trim();
  if (!EMAIL.test(trimmed)) throw validation({ email: ["Enter an email address, like name@example.com."] });
  return trimmed;
}

export function audit(sql: Db, actor: Actor | null, action: string, workspaceId: number | null, detail?: Record<string, unknown>) {
  return repo.insertAudit(sql, { workspaceId, userId: actor?.userId ?? null, actor: actor?.email ?? "operator", action, detail });
}

/**
 * A new user with `password` (422 when it breaks the rules or the email is taken),
 * a member of `workspaceId` when given. Run it in a transaction (`sql.begin`).
 */
export async function createUser(
  sql: Db,
  input: { email: string; password: string; workspaceId?: number; role?: Role },
  by: Actor | null,
): Promise<repo.UserRow> {
  const email = normaliseEmail(input.email);
  const problems = passwordProblems(input.password, email);
  if (problems.length) throw validation({ password: problems });
  const user = await repo.insertUser(sql, email, await hashPassword(input.password));
  if (!user) throw validation({ email: ["An account with this email already exists."] });
  const role = input.role ?? "owner";
  if (input.workspaceId !== undefined) await repo.upsertMembership(sql, input.workspaceId, user.id, role);
  await audit(sql, by, "user.created", input.workspaceId ?? null, { email, role });
  return user;
}

export const addMember = (sql: Db, workspaceId: number, userId: number, role: Role) => repo.upsertMembership(sql, workspaceId, userId, role);

/** A fresh session: the cookie's value (shown to the client only) and its CSRF token. */
async function openSession(deps: AccountDeps, userId: number): Promise<{ cookie: string; csrf: string }> {
  const cookie = secret("fls_");
  const csrf = randomBytes(32).toString("base64url");
  await repo.insertSession(deps.sql, { idHash: sha256Hex(cookie), userId, csrf, expiresAt: new Date(deps.clock.now() + SESSION_MS) });
  return { cookie, csrf };
}

export interface SignedIn {
  user: { id: number; email: string };
  cookie: string;
  csrf: string;
}

/**
 * Checks the password and opens a new session, ending the one the client came
 * with (no session id survives a sign-in). Refused with 429 while the address's
 * back-off on this account runs, or past the address's rate.
 */
export async function signIn(deps: Deps, input: { email: string; password: string; code?: string; ip: string; previous?: string }): Promise<SignedIn> {
  await consume(deps.rateLimits, `sign-in:${input.ip}`, PER_IP, deps.clock.now());
  const key = lockoutKey(input.ip, input.email.trim());
  const lock = await repo.findFailures(deps.sql, key);
  const waitMs = lock?.locked_until ? lock.locked_until.getTime() - deps.clock.now() : 0;
  if (waitMs > 0) throw signInLocked(waitMs);
  const user = await repo.findUserByEmail(deps.sql, input.email.trim());
  const failed = async (message?: string) => {
    const failures = await repo.addFailure(deps.sql, key, now(deps));
    const lockMs = lockFor(failures);
    if (lockMs) await repo.lockUntil(deps.sql, key, new Date(deps.clock.now() + lockMs));
    if (user) await audit(deps.sql, { userId: user.id, email: user.email }, "sign_in.failed", null, { failures });
    return lockMs ? signInLocked(lockMs) : fail("INVALID_CREDENTIALS", message);
  };
  if (!(await verifyPassword(input.password, user?.password_hash))) throw await failed();
  if (user!.totp_enabled) {
    // The password was right: ask for the second factor, which goes through the same back-off.
    if (!input.code) throw fail("TWO_FACTOR_REQUIRED");
    const how = await secondFactor(deps, user!, input.code);
    if (!how) throw await failed("The code from your authenticator app, or the recovery code, is wrong or was used already.");
    if (how === "recovery_code") await audit(deps.sql, { userId: user!.id, email: user!.email }, "sign_in.recovery_code", null);
  }
  await repo.clearFailures(deps.sql, key);
  if (input.previous) await endSessions(deps, await repo.deleteSessions(deps.sql, { idHash: sha256Hex(input.previous) }));
  const opened = await openSession(deps, user!.id);
  await audit(deps.sql, { userId: user!.id, email: user!.email }, "sign_in", null);
  return { user: { id: user!.id, email: user!.email }, ...opened };
}

const signInLocked = (ms: number) => {
  const seconds = Math.ceil(ms / 1000);
  return fail("RATE_LIMITED", `Too many failed sign-ins from this address. Try again in ${seconds} s.`, {}, { "Retry-After": String(seconds) });
};

export const findSession = (deps: AccountDeps, cookie: string) => repo.findSession(deps.sql, sha256Hex(cookie), now(deps));

/** Revokes the API tokens the ended sessions minted for the dashboard. */
async function endSessions(deps: Deps, hashes: string[]): Promise<void> {
  if (!hashes.length) return;
  for (const id of await repo.sessionTokenIds(deps.sql, { sessionHashes: hashes })) await revokeToken(deps, id);
}

export async function signOut(deps: Deps, session: repo.SessionRow): Promise<void> {
  await endSessions(deps, await repo.deleteSessions(deps.sql, { idHash: session.id_hash }));
  await audit(deps.sql, { userId: session.user_id, email: session.email }, "sign_out", null);
}

/** Ends every session of the user, on every device; answers how many. */
export async function signOutEverywhere(deps: Deps, session: repo.SessionRow): Promise<number> {
  const hashes = await repo.deleteSessions(deps.sql, { userId: session.user_id });
  await endSessions(deps, hashes);
  await audit(deps.sql, { userId: session.user_id, email: session.email }, "sign_out.everywhere", null, { sessions: hashes.length });
  return hashes.length;
}

/**
 * The member's role in the workspace, at least `needed`: a workspace the user is
 * not a member of is a 404 (one workspace never learns of another), a lower role a 403.
 */
export async function requireRole(deps: AccountDeps, session: repo.SessionRow, workspaceId: number, needed: Role): Promise<Role> {
  const role = await repo.findRole(deps.sql, workspaceId, session.user_id);
  if (!role) throw Errors.notFound("Workspace not found.");
  if (!atLeast(role, needed))
    throw fail("INSUFFICIENT_ROLE", `This needs the ${needed} role; you are ${role === "analyst" ? "an" : "a"} ${role}.`, { required: needed });
  return role;
}

/** A one-day API token with the scopes of the member's role, for the dashboard's own calls; revoked with the session. */
export async function mintSessionToken(deps: Deps, session: repo.SessionRow, workspaceId: number) {
  const role = await requireRole(deps, session, workspaceId, "analyst");
  const minted = await createToken(deps, workspaceId, { name: `Dashboard: ${session.email}`, scopes: [...Roles[role].scopes], expiresInDays: 1 });
  await repo.insertSessionToken(deps.sql, { tokenId: minted.token.id, sessionHash: session.id_hash, userId: session.user_id, workspaceId });
  return { ...minted, role };
}

/** An invite by link: the secret is answered once (to copy, or mailed), only its hash is kept. */
export async function invite(deps: Deps, session: repo.SessionRow, workspaceId: number, input: { email: string; role: Role }) {
  await requireRole(deps, session, workspaceId, "owner");
  const email = normaliseEmail(input.email);
  const token = secret("fli_");
  const row = await repo.insertInvite(deps.sql, {
    workspaceId,
    email,
    role: input.role,
    tokenHash: sha256Hex(token),
    invitedBy: session.user_id,
    expiresAt: new Date(deps.clock.now() + INVITE_MS),
  });
  await audit(deps.sql, actorOf(session), "member.invited", workspaceId, { email, role: input.role });
  return { invite: row, token };
}

export const listOpenInvites = (deps: AccountDeps, workspaceId: number) => repo.listOpenInvites(deps.sql, workspaceId, now(deps));

export const findOpenInvite = (deps: AccountDeps, token: string) => repo.findOpenInvite(deps.sql, sha256Hex(token), now(deps));

/**
 * Joins the invite's workspace with its role: a new account is created with
 * `password`; an existing one must give its own password. Signs the user in.
 */
export async function acceptInvite(deps: Deps, input: { token: string; password: string; ip: string; previous?: string }): Promise<SignedIn> {
  const open = await findOpenInvite(deps, input.token);
  if (!open) throw Errors.notFound("This invite link is unknown, used or expired. Ask for a new one.");
  const existing = await repo.findUserByEmail(deps.sql, open.email);
  if (!existing) {
    const problems = passwordProblems(input.password, open.email);
    if (problems.length) throw validation({ password: problems });
  }
  const hash = existing ? undefined : await hashPassword(input.password);
  await deps.sql.begin(async (tx) => {
    const accepted = await repo.acceptInvite(tx, sha256Hex(input.token), now(deps));
    if (!accepted) throw Errors.notFound("This invite link is unknown, used or expired. Ask for a new one.");
    const user = existing ?? (await repo.insertUser(tx, accepted.email, hash!));
    if (!user) throw validation({ email: ["An account with this email already exists: sign in, then open the link again."] });
    await repo.upsertMembership(tx, accepted.workspace_id, user.id, accepted.role);
    await audit(tx, { userId: user.id, email: user.email }, "member.joined", accepted.workspace_id, { role: accepted.role });
  });
  // An existing account proves itself with its password, through the same back-off as any sign-in.
  return signIn(deps, { email: open.email, password: input.password, ip: input.ip, previous: input.previous });
}

/** Removes a member and revokes the API tokens their sessions minted there; the last owner stays. */
export async function removeMember(deps: Deps, session: repo.SessionRow, workspaceId: number, userId: number): Promise<void> {
  await requireRole(deps, session, workspaceId, "owner");
  const removed = await deps.sql.begin(async (tx) => {
    const gone = await repo.deleteMembership(tx, workspaceId, userId);
    if (!gone) throw Errors.notFound("No such member in this workspace.");
    if (gone.role === "owner" && (await repo.countOwners(tx, workspaceId)) === 0) {
      throw validation({ user: ["A workspace keeps at least one owner: make someone else owner first."] });
    }
    await audit(tx, actorOf(session), "member.removed", workspaceId, { email: gone.email, role: gone.role });
    return gone;
  });
  for (const id of await repo.sessionTokenIds(deps.sql, { workspaceId, userId: removed.user_id })) await revokeToken(deps, id);
}

export const actorOf = (session: repo.SessionRow): Actor => ({ userId: session.user_id, email: session.email });

/** Checks a TOTP code (each works once) or spends a recovery code; answers which, or undefined. */
async function secondFactor(deps: Deps, user: repo.UserRow, code: string): Promise<"totp" | "recovery_code" | undefined> {
  const typed = code.trim();
  const step = user.totp_secret ? verifyTotp(user.totp_secret, typed, deps.clock.now(), user.totp_last_step) : undefined;
  if (step !== undefined) return (await repo.useTotpStep(deps.sql, user.id, step)) ? "totp" : undefined;
  return (await repo.useRecoveryCode(deps.sql, user.id, sha256Hex(normaliseRecoveryCode(typed)))) ? "recovery_code" : undefined;
}

/** A new TOTP secret for the user's app; two-factor stays off until a first code confirms it. */
export async function setUpTwoFactor(deps: AccountDeps, session: repo.SessionRow) {
  if (session.totp_enabled) throw validation({ code: ["Two-factor sign-in is already on: turn it off first to set up another app."] });
  const secret = newSecret();
  await repo.setPendingTotp(deps.sql, session.user_id, secret);
  return { secret, otpauth_url: otpauthUrl("Frameline", session.email, secret) };
}

/** Turns two-factor on once a code from the app matches; answers the recovery codes, shown once. */
export async function enableTwoFactor(deps: AccountDeps, session: repo.SessionRow, code: string): Promise<string[]> {
  const user = await repo.findUser(deps.sql, session.user_id);
  if (!user?.totp_secret || user.totp_enabled) throw validation({ code: ["Start the set-up first."] });
  const step = verifyTotp(user.totp_secret, code.trim(), deps.clock.now(), null);
  if (step === undefined) throw validation({ code: ["That code does not match: check the app's clock and type the code it shows now."] });
  const codes = newRecoveryCodes();
  await deps.sql.begin(async (tx) => {
    await repo.enableTotp(
      tx,
      user.id,
      step,
      codes.map((c) => sha256Hex(normaliseRecoveryCode(c))),
    );
    await audit(tx, actorOf(session), "two_factor.enabled", null);
  });
  return codes;
}

/** Turns two-factor off; the account's password confirms it. */
export async function disableTwoFactor(deps: AccountDeps, session: repo.SessionRow, password: string): Promise<void> {
  const user = await repo.findUser(deps.sql, session.user_id);
  if (!user || !(await verifyPassword(password, user.password_hash))) throw validation({ password: ["The password is wrong."] });
  await deps.sql.begin(async (tx) => {
    await repo.disableTotp(tx, user.id);
    await audit(tx, actorOf(session), "two_factor.disabled", null);
  });
}

/** The sweeper's part (docs/architecture.md "Jobs"): ended sessions, lapsed invites, old back-off rows. */
export const sweepAccounts = (deps: AccountDeps) => repo.deleteStale(deps.sql, now(deps));
