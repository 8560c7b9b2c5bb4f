/** The SQL of accounts: users, sessions, memberships, invites, the sign-in back-off and the audit list. */
import { json, type Db } from "../../storage/postgres.ts";
import type { Role } from "../../../contract/roles.ts";

export interface UserRow {
  id: number;
  email: string;
  password_hash: string;
  totp_secret: string | null;
  totp_enabled: boolean;
  totp_last_step: number | null;
  created_at: Date;
}
const USER = "id, email, password_hash, totp_secret, totp_enabled, totp_last_step::float8 AS totp_last_step, created_at";

export interface SessionRow {
  id_hash: string;
  user_id: number;
  csrf_token: string;
  expires_at: Date;
  email: string;
  totp_enabled: boolean;
}

export interface MemberRow {
  user_id: number;
  email: string;
  role: Role;
  created_at: Date;
}

export interface MembershipRow {
  id: number;
  code: string;
  name: string;
  created_at: Date;
  role: Role;
}

export interface InviteRow {
  id: number;
  workspace_id: number;
  email: string;
  role: Role;
  expires_at: Date;
  accepted_at: Date | null;
  created_at: Date;
}

export interface AuditRow {
  id: number;
  actor: string;
  action: string;
  detail: Record<string, unknown>;
  created_at: Date;
}

export async function findUserByEmail(sql: Db, email: string): Promise<UserRow | undefined> {
  const [row]: [UserRow?] = await sql`SELECT ${sql.unsafe(USER)} FROM users WHERE lower(email) = lower(${email})`;
  return row;
}

export async function findUser(sql: Db, id: number): Promise<UserRow | undefined> {
  const [row]: [UserRow?] = await sql`SELECT ${sql.unsafe(USER)} FROM users WHERE id = ${id}`;
  return row;
}

/** A secret waiting to be confirmed by a first code; two-factor stays off until then. */
export async function setPendingTotp(sql: Db, userId: number, secret: string): Promise<void> {
  await sql`UPDATE users SET totp_secret = ${secret}, totp_enabled = false, totp_last_step = NULL, updated_at = now() WHERE id = ${userId}`;
}

/** Turns two-factor on with the step of the confirming code and fresh recovery codes. */
export async function enableTotp(sql: Db, userId: number, step: number, codeHashes: string[]): Promise<void> {
  await sql`UPDATE users SET totp_enabled = true, totp_last_step = ${step}, updated_at = now() WHERE id = ${userId}`;
  await sql`DELETE FROM recovery_codes WHERE user_id = ${userId}`;
  await sql`INSERT INTO recovery_codes ${sql(codeHashes.map((code_hash) => ({ user_id: userId, code_hash })))}`;
}

export async function disableTotp(sql: Db, userId: number): Promise<void> {
  await sql`UPDATE users SET totp_secret = NULL, totp_enabled = false, totp_last_step = NULL, updated_at = now() WHERE id = ${userId}`;
  await sql`DELETE FROM recovery_codes WHERE user_id = ${userId}`;
}

/** Records `step` as used; false when it (or a later one) already was: a code works once, even in a race. */
export async function useTotpStep(sql: Db, userId: number, step: number): Promise<boolean> {
  const rows = await sql`
    UPDATE users SET totp_last_step = ${step}
    WHERE id = ${userId} AND (totp_last_step IS NULL OR totp_last_step < ${step}) RETURNING id`;
  return rows.length > 0;
}

/** Spends a recovery code; false when it is unknown or spent. */
export async function useRecoveryCode(sql: Db, userId: number, codeHash: string): Promise<boolean> {
  const rows = await sql`
    UPDATE recovery_codes SET used_at = now() WHERE user_id = ${userId} AND code_hash = ${codeHash} AND used_at IS NULL RETURNING user_id`;
  return rows.length > 0;
}

/** Inserts the user, or answers undefined when the email is taken. */
export async function insertUser(sql: Db, email: string, passwordHash: string): Promise<UserRow | undefined> {
  const [row]: [UserRow?] = await sql`
    INSERT INTO users (email, password_hash) VALUES (${email}, ${passwordHash})
    ON CONFLICT (lower(email)) DO NOTHING
    RETURNING ${sql.unsafe(USER)}`;
  return row;
}

export async function countUsers(sql: Db): Promise<number> {
  const [row]: [{ n: number }?] = await sql`SELECT count(*)::int AS n FROM users`;
  return row?.n ?? 0;
}

export async function insertSession(sql: Db, input: { idHash: string; userId: number; csrf: string; expiresAt: Date }): Promise<void> {
  await sql`INSERT INTO user_sessions (id_hash, user_id, csrf_token, expires_at) VALUES (${input.idHash}, ${input.userId}, ${input.csrf}, ${input.expiresAt})`;
}

export async function findSession(sql: Db, idHash: string, now: Date): Promise<SessionRow | undefined> {
  const [row]: [SessionRow?] = await sql`
    SELECT s.id_hash, s.user_id, s.csrf_token, s.expires_at, u.email, u.totp_enabled
    FROM user_sessions s JOIN users u ON u.id = s.user_id
    WHERE s.id_hash = ${idHash} AND s.expires_at > ${now}`;
  return row;
}

/** Deletes the sessions (one, or every one of the user) and answers the hashes gone. */
export async function deleteSessions(sql: Db, by: { idHash: string } | { userId: number }): Promise<string[]> {
  const rows =
    "idHash" in by
      ? await sql<{ id_hash: string }[]>`DELETE FROM user_sessions WHERE id_hash = ${by.idHash} RETURNING id_hash`
      : await sql<{ id_hash: string }[]>`DELETE FROM user_sessions WHERE user_id = ${by.userId} RETURNING id_hash`;
  return rows.map((r) => r.id_hash);
}

/** Expired sessions, unused expired invites, and back-off rows quiet for a day whose lock has lapsed; answers how many went. */
export async function deleteStale(sql: Db, now: Date): Promise<number> {
  const dayAgo = new Date(now.getTime() - 86_400_000);
  const sessions = await sql`DELETE FROM user_sessions WHERE expires_at <= ${now}`;
  const invites = await sql`DELETE FROM invites WHERE accepted_at IS NULL AND expires_at <= ${now}`;
  const failures = await sql`DELETE FROM sign_in_failures WHERE updated_at < ${dayAgo} AND (locked_until IS NULL OR locked_until < ${now})`;
  return sessions.count + invites.count + failures.count;
}

export async function upsertMembership(sql: Db, workspaceId: number, userId: number, role: Role): Promise<void> {
  await sql`
    INSERT INTO memberships (workspace_id, user_id, role) VALUES (${workspaceId}, ${userId}, ${role})
    ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = EXCLUDED.role`;
}

export async function findRole(sql: Db, workspaceId: number, userId: number): Promise<Role | undefined> {
  const [row]: [{ role: Role }?] = await sql`SELECT role FROM memberships WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`;
  return row?.role;
}

export async function listMemberships(sql: Db, userId: number): Promise<MembershipRow[]> {
  return sql<MembershipRow[]>`
    SELECT w.id, w.code, w.name, w.created_at, m.role
    FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
    WHERE m.user_id = ${userId} ORDER BY w.id`;
}

export async function listMembers(sql: Db, workspaceId: number): Promise<MemberRow[]> {
  return sql<MemberRow[]>`
    SELECT u.id AS user_id, u.email, m.role, m.created_at
    FROM memberships m JOIN users u ON u.id = m.user_id
    WHERE m.workspace_id = ${workspaceId} ORDER BY m.created_at, u.id`;
}

export async function deleteMembership(sql: Db, workspaceId: number, userId: number): Promise<MemberRow | undefined> {
  const [row]: [MemberRow?] = await sql`
    DELETE FROM memberships m USING users u
    WHERE m.workspace_id = ${workspaceId} AND m.user_id = ${userId} AND u.id = m.user_id
    RETURNING m.user_id, u.email, m.role, m.created_at`;
  return row;
}

export async function countOwners(sql: Db, workspaceId: number): Promise<number> {
  const [row]: [{ n: number }?] = await sql`SELECT count(*)::int AS n FROM memberships WHERE workspace_id = ${workspaceId} AND role = 'owner'`;
  return row?.n ?? 0;
}

export async function insertSessionToken(sql: Db, input: { tokenId: number; sessionHash: string; userId: number; workspaceId: number }): Promise<void> {
  await sql`
    INSERT INTO session_api_tokens (token_id, session_hash, user_id, workspace_id)
    VALUES (${input.tokenId}, ${input.sessionHash}, ${input.userId}, ${input.workspaceId})`;
}

/** The live API tokens minted by these sessions, or by the member in the workspace. */
export async function sessionTokenIds(sql: Db, by: { sessionHashes: string[] } | { workspaceId: number; userId: number }): Promise<number[]> {
  const rows =
    "sessionHashes" in by
      ? await sql<{ token_id: number }[]>`
          SELECT s.token_id FROM session_api_tokens s JOIN api_tokens t ON t.id = s.token_id
          WHERE s.session_hash IN ${sql(by.sessionHashes)} AND t.revoked_at IS NULL`
      : await sql<{ token_id: number }[]>`
          SELECT s.token_id FROM session_api_tokens s JOIN api_tokens t ON t.id = s.token_id
          WHERE s.workspace_id = ${by.workspaceId} AND s.user_id = ${by.userId} AND t.revoked_at IS NULL`;
  return rows.map((r) => r.token_id);
}

export async function insertInvite(
  sql: Db,
  input: { workspaceId: number; email: string; role: Role; tokenHash: string; invitedBy: number | null; expiresAt: Date },
): Promise<InviteRow> {
  const [row]: [InviteRow?] = await sql`
    INSERT INTO invites (workspace_id, email, role, token_hash, invited_by, expires_at)
    VALUES (${input.workspaceId}, ${input.email}, ${input.role}, ${input.tokenHash}, ${input.invitedBy}, ${input.expiresAt})
    RETURNING id, workspace_id, email, role, expires_at, accepted_at, created_at`;
  return row!;
}

/** Marks an open invite accepted and answers it; undefined when it is unknown, used or expired. */
export async function acceptInvite(sql: Db, tokenHash: string, now: Date): Promise<InviteRow | undefined> {
  const [row]: [InviteRow?] = await sql`
    UPDATE invites SET accepted_at = ${now}
    WHERE token_hash = ${tokenHash} AND accepted_at IS NULL AND expires_at > ${now}
    RETURNING id, workspace_id, email, role, expires_at, accepted_at, created_at`;
  return row;
}

export async function findOpenInvite(sql: Db, tokenHash: string, now: Date): Promise<InviteRow | undefined> {
  const [row]: [InviteRow?] = await sql`
    SELECT id, workspace_id, email, role, expires_at, accepted_at, created_at FROM invites
    WHERE token_hash = ${tokenHash} AND accepted_at IS NULL AND expires_at > ${now}`;
  return row;
}

export async function listOpenInvites(sql: Db, workspaceId: number, now: Date): Promise<InviteRow[]> {
  return sql<InviteRow[]>`
    SELECT id, workspace_id, email, role, expires_at, accepted_at, created_at FROM invites
    WHERE workspace_id = ${workspaceId} AND accepted_at IS NULL AND expires_at > ${now} ORDER BY id`;
}

/** The back-off row of a key, if it failed lately. */
export async function findFailures(sql: Db, key: string): Promise<{ failures: number; locked_until: Date | null } | undefined> {
  const [row]: [{ failures: number; locked_until: Date | null }?] = await sql`SELECT failures, locked_until FROM sign_in_failures WHERE key = ${key}`;
  return row;
}

/** Counts one failure and answers the count; a key quiet for a day starts again. */
export async function addFailure(sql: Db, key: string, now: Date): Promise<number> {
  const [row]: [{ failures: number }?] = await sql`
    INSERT INTO sign_in_failures (key, failures, updated_at) VALUES (${key}, 1, ${now})
    ON CONFLICT (key) DO UPDATE SET
      failures = CASE WHEN sign_in_failures.updated_at < ${now}::timestamptz - interval '1 day' THEN 1 ELSE sign_in_failures.failures + 1 END,
      updated_at = ${now}
    RETURNING failures`;
  return row!.failures;
}

export async function lockUntil(sql: Db, key: string, until: Date): Promise<void> {
  await sql`UPDATE sign_in_failures SET locked_until = ${until} WHERE key = ${key}`;
}

export async function clearFailures(sql: Db, key: string): Promise<void> {
  await sql`DELETE FROM sign_in_failures WHERE key = ${key}`;
}

export async function insertAudit(
  sql: Db,
  input: { workspaceId: number | null; userId: number | null; actor: string; action: string; detail?: Record<string, unknown> },
): Promise<void> {
  await sql`
    INSERT INTO audit_log (workspace_id, user_id, actor, action, detail)
    VALUES (${input.workspaceId}, ${input.userId}, ${input.actor}, ${input.action}, ${json(sql, input.detail ?? {})})`;
}

/** The workspace's changes and its members' sign-ins, newest first. */
export async function listAudit(sql: Db, workspaceId: number, limit: number): Promise<AuditRow[]> {
  return sql<AuditRow[]>`
    SELECT id, actor, action, detail, created_at FROM audit_log
    WHERE workspace_id = ${workspaceId}
       OR (workspace_id IS NULL AND user_id IN (SELECT user_id FROM memberships WHERE workspace_id = ${workspaceId}))
    ORDER BY id DESC LIMIT ${limit}`;
}
