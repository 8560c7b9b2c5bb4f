/** Workspaces and what hangs off them: tokens, declared custom metrics, integrations (docs/api.md "The operator API"). */
import type { Deps } from "../../deps.ts";
import type { Db } from "../../storage/postgres.ts";
import { REVOCATION_CHANNEL } from "../../http/token-verifier.ts";
import { newLegacyKey, newToken, sha256Hex } from "../../http/tokens.ts";
import type { Scope } from "../../../contract/scopes.ts";
import * as repo from "./repo.ts";
import type { TokenRow, WorkspaceRow } from "./repo.ts";

export { findTokenWorkspace, findWorkspace, listIntegrations, listMetrics, listTokens, listWorkspaces } from "./repo.ts";

export const toWorkspace = (row: WorkspaceRow) => ({ id: row.id, code: row.code, name: row.name, created_at: row.created_at.toISOString() });

export const toToken = (row: TokenRow) => ({
  id: row.id,
  name: row.name,
  scopes: row.scopes,
  expires_at: row.expires_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
  ...(row.revoked_at ? { revoked_at: row.revoked_at.toISOString() } : {}),
});

/** Only the legacy key's hash is stored; the key itself is shown once. */
export async function createWorkspace(sql: Db, name: string): Promise<{ workspace: WorkspaceRow; legacyKey: string }> {
  const legacyKey = newLegacyKey();
  const workspace = await repo.insertWorkspace(sql, { code: crypto.randomUUID(), name, legacyKeyHash: sha256Hex(legacyKey) });
  return { workspace, legacyKey };
}

/** docs/api.md "Authentication" 3: only a SHA-256 of the token is stored; it is shown once. */
export async function createToken(
  deps: { sql: Db } & Pick<Deps, "clock">,
  workspaceId: number,
  input: { name: string; scopes: Scope[]; expiresInDays?: number },
): Promise<{ token: TokenRow; secret: string }> {
  const secret = newToken();
  const expiresAt = input.expiresInDays === undefined ? null : new Date(deps.clock.now() + input.expiresInDays * 86_400_000);
  const token = await repo.insertToken(deps.sql, {
    workspaceId,
    name: input.name,
    scopes: [...new Set(input.scopes)],
    tokenHash: sha256Hex(secret),
    expiresAt,
  });
  return { token, secret };
}

/** Revokes at once: this process evicts its cache, others hear the NOTIFY. */
export async function revokeToken(deps: Deps, id: number): Promise<boolean> {
  const revoked = await repo.revokeToken(deps.sql, id, deps.embedded ? undefined : REVOCATION_CHANNEL);
  deps.tokens.evict(id);
  return revoked;
}

export async function declareMetric(sql: Db, workspaceId: number, name: string): Promise<void> {
  await repo.insertMetric(sql, workspaceId, name);
}

export async function setIntegration(sql: Db, workspaceId: number, name: string, browserFallback: boolean): Promise<void> {
  await repo.upsertIntegration(sql, workspaceId, name, browserFallback);
}
