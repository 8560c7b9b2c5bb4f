/** Workspaces, tokens, custom metrics and integrations: the operator's side (CONTRACT.md). */
import type { Deps } from "../../deps.ts";
import type { Sql } from "../../storage/postgres.ts";
import { REVOCATION_CHANNEL } from "../../http/token-verifier.ts";
import { newLegacyKey, newToken, sha256Hex } from "../../http/tokens.ts";
import type { Scope } from "../../http/scopes.ts";

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

export const toWorkspace = (row: WorkspaceRow) => ({ id: row.id, code: row.code, name: row.name, created_at: row.created_at.toISOString() });

export const toToken = (row: TokenRow) => ({
  id: row.id,
  name: row.name,
  scopes: row.scopes,
  expires_at: row.expires_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
  ...(row.revoked_at ? { revoked_at: row.revoked_at.toISOString() } : {}),
});

export async function createWorkspace(sql: Sql, name: string): Promise<{ workspace: WorkspaceRow; legacyKey: string }> {
  const legacyKey = newLegacyKey();
  const [workspace]: [WorkspaceRow?] = await sql`
    INSERT INTO workspaces (code, name, legacy_key_hash) VALUES (${crypto.randomUUID()}, ${name}, ${sha256Hex(legacyKey)})
    RETURNING id, code, name, created_at`;
  return { workspace: workspace!, legacyKey };
}

export async function listWorkspaces(sql: Sql): Promise<WorkspaceRow[]> {
  return [...(await sql<WorkspaceRow[]>`SELECT id, code, name, created_at FROM workspaces ORDER BY id`)];
}

export async function findWorkspace(sql: Sql, id: number): Promise<WorkspaceRow | undefined> {
  const [row]: [WorkspaceRow?] = await sql`SELECT id, code, name, created_at FROM workspaces WHERE id = ${id}`;
  return row;
}

export async function createToken(
  deps: Pick<Deps, "sql" | "clock">,
  workspaceId: number,
  input: { name: string; scopes: Scope[]; expiresInDays?: number },
): Promise<{ token: TokenRow; secret: string }> {
  const secret = newToken();
  const expiresAt = input.expiresInDays === undefined ? null : new Date(deps.clock.now() + input.expiresInDays * 86_400_000);
  const [token]: [TokenRow?] = await deps.sql`
    INSERT INTO api_tokens (workspace_id, name, scopes, token_hash, expires_at)
    VALUES (${workspaceId}, ${input.name}, ${deps.sql.array([...new Set(input.scopes)])}, ${sha256Hex(secret)}, ${expiresAt})
    RETURNING id, workspace_id, name, scopes, expires_at, revoked_at, created_at`;
  return { token: token!, secret };
}

export async function listTokens(sql: Sql, workspaceId: number): Promise<TokenRow[]> {
  return [
    ...(await sql<TokenRow[]>`
      SELECT id, workspace_id, name, scopes, expires_at, revoked_at, created_at FROM api_tokens
      WHERE workspace_id = ${workspaceId} AND revoked_at IS NULL ORDER BY id`),
  ];
}

/** Revokes at once: this process evicts its cache, others hear the NOTIFY. */
export async function revokeToken(deps: Deps, id: number): Promise<boolean> {
  const revoked = await deps.sql.begin(async (tx) => {
    const rows = await tx`UPDATE api_tokens SET revoked_at = now() WHERE id = ${id} AND revoked_at IS NULL RETURNING id`;
    if (rows.length && !deps.embedded) await tx`SELECT pg_notify(${REVOCATION_CHANNEL}, ${String(id)})`;
    return rows.length > 0;
  });
  deps.tokens.evict(id);
  return revoked;
}

/** SPEC.md "Custom event": lowercased, reduced to [a-z0-9_-], at most 64 characters. */
export function normaliseEventName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, "")
    .slice(0, 64);
}

export async function declareMetric(sql: Sql, workspaceId: number, name: string): Promise<void> {
  await sql`INSERT INTO custom_metrics (workspace_id, name) VALUES (${workspaceId}, ${name}) ON CONFLICT DO NOTHING`;
}

export async function setIntegration(sql: Sql, workspaceId: number, name: string, browserFallback: boolean): Promise<void> {
  await sql`
    INSERT INTO integrations (workspace_id, name, browser_fallback) VALUES (${workspaceId}, ${name}, ${browserFallback})
    ON CONFLICT (workspace_id, name) DO UPDATE SET browser_fallback = EXCLUDED.browser_fallback, updated_at = now()`;
}

export async function listMetrics(sql: Sql, workspaceId: number): Promise<{ name: string }[]> {
  return [...(await sql<{ name: string }[]>`SELECT name FROM custom_metrics WHERE workspace_id = ${workspaceId} ORDER BY name`)];
}

export async function listIntegrations(sql: Sql, workspaceId: number): Promise<{ name: string; browser_fallback: boolean }[]> {
  return [
    ...(await sql<
      { name: string; browser_fallback: boolean }[]
    >`SELECT name, browser_fallback FROM integrations WHERE workspace_id = ${workspaceId} ORDER BY name`),
  ];
}
