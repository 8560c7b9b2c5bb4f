/** The SQL of the operator's side: workspaces, tokens, custom metrics and integrations. */
import type { Db, Sql } from "../../storage/postgres.ts";

export interface WorkspaceRow {
  id: number;
  code: string;
  name: string;
  created_at: Date;
}

export interface TokenRow {
  id: number;
  workspace_id: number;
  name: string;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

export async function insertWorkspace(sql: Db, input: { code: string; name: string; legacyKeyHash: string }): Promise<WorkspaceRow> {
  const [workspace]: [WorkspaceRow?] = await sql`
    INSERT INTO workspaces (code, name, legacy_key_hash) VALUES (${input.code}, ${input.name}, ${input.legacyKeyHash})
    RETURNING id, code, name, created_at`;
  return workspace!;
}

export async function listWorkspaces(sql: Db): Promise<WorkspaceRow[]> {
  return [...(await sql<WorkspaceRow[]>`SELECT id, code, name, created_at FROM workspaces ORDER BY id`)];
}

export async function findWorkspace(sql: Db, id: number): Promise<WorkspaceRow | undefined> {
  const [row]: [WorkspaceRow?] = await sql`SELECT id, code, name, created_at FROM workspaces WHERE id = ${id}`;
  return row;
}

export async function insertToken(
  sql: Db,
  input: { workspaceId: number; name: string; scopes: string[]; tokenHash: string; expiresAt: Date | null },
): Promise<TokenRow> {
  const [token]: [TokenRow?] = await sql`
    INSERT INTO api_tokens (workspace_id, name, scopes, token_hash, expires_at)
    VALUES (${input.workspaceId}, ${input.name}, ${sql.array(input.scopes)}, ${input.tokenHash}, ${input.expiresAt})
    RETURNING id, workspace_id, name, scopes, expires_at, revoked_at, created_at`;
  return token!;
}

export async function listTokens(sql: Db, workspaceId: number): Promise<TokenRow[]> {
  return [
    ...(await sql<TokenRow[]>`
      SELECT id, workspace_id, name, scopes, expires_at, revoked_at, created_at FROM api_tokens
      WHERE workspace_id = ${workspaceId} AND revoked_at IS NULL ORDER BY id`),
  ];
}

/** Revokes a live token; `channel`, when given, hears its id in the same transaction (other processes evict it). */
/** The workspace of a live token (a member revoking it must belong there). */
export async function findTokenWorkspace(sql: Db, id: number): Promise<number | undefined> {
  const [row]: [{ workspace_id: number }?] = await sql`SELECT workspace_id FROM api_tokens WHERE id = ${id} AND revoked_at IS NULL`;
  return row?.workspace_id;
}

export async function revokeToken(sql: Sql, id: number, channel: string | undefined): Promise<boolean> {
  return sql.begin(async (tx) => {
    const rows = await tx`UPDATE api_tokens SET revoked_at = now() WHERE id = ${id} AND revoked_at IS NULL RETURNING id`;
    if (rows.length && channel) await tx`SELECT pg_notify(${channel}, ${String(id)})`;
    return rows.length > 0;
  });
}

export async function insertMetric(sql: Db, workspaceId: number, name: string): Promise<void> {
  await sql`INSERT INTO custom_metrics (workspace_id, name) VALUES (${workspaceId}, ${name}) ON CONFLICT DO NOTHING`;
}

export async function upsertIntegration(sql: Db, workspaceId: number, name: string, browserFallback: boolean): Promise<void> {
  await sql`
    INSERT INTO integrations (workspace_id, name, browser_fallback) VALUES (${workspaceId}, ${name}, ${browserFallback})
    ON CONFLICT (workspace_id, name) DO UPDATE SET browser_fallback = EXCLUDED.browser_fallback, updated_at = now()`;
}

export async function listMetrics(sql: Db, workspaceId: number): Promise<{ name: string }[]> {
  return [...(await sql<{ name: string }[]>`SELECT name FROM custom_metrics WHERE workspace_id = ${workspaceId} ORDER BY name`)];
}

export async function listIntegrations(sql: Db, workspaceId: number): Promise<{ name: string; browser_fallback: boolean }[]> {
  return [
    ...(await sql<
      { name: string; browser_fallback: boolean }[]
    >`SELECT name, browser_fallback FROM integrations WHERE workspace_id = ${workspaceId} ORDER BY name`),
  ];
}
