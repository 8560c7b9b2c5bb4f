/**
 * The rules of docs/api.md "Playback protection" that several routes share: the
 * allowed-origins list as a client sends it, and the tokens the service mints with
 * its own key of the workspace (POST /videos/{id}/token, the embed player's ask).
 */
import type { Deps } from "../../deps.ts";
import { validation } from "../../errors.ts";
import { MAX_ALLOWED_ORIGINS, originPatternError } from "../../../contract/allowed-origins.ts";
import * as repo from "./repo.ts";
import { signToken, type TokenClaims } from "./tokens.ts";

/** Default lifetime of a minted token (Cloudflare's is one hour). */
export const TOKEN_TTL_S = 3600;
/** What the embed player asks for: enough to start and play, renewed on the next page view. */
export const PLAYER_TOKEN_TTL_S = 4 * 3600;

/** The list trimmed and lower-cased, duplicates dropped; a 422 naming each bad entry. */
export function checkedOrigins(field: string, list: readonly string[]): string[] {
  const entries = [...new Set(list.map((e) => e.trim().toLowerCase()))];
  const errors = entries.map(originPatternError).filter((e): e is string => e !== null);
  if (entries.length > MAX_ALLOWED_ORIGINS) errors.unshift(`At most ${MAX_ALLOWED_ORIGINS} origins may be listed.`);
  if (errors.length) throw validation({ [field]: errors });
  return entries;
}

export const newSecret = (): string => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");

/** The workspace's own key, made on first use (two processes making it at once keep one). */
async function serviceKey(deps: Pick<Deps, "sql" | "playback">, workspaceId: number): Promise<repo.SigningKeyRow> {
  const found = await repo.internalKey(deps.sql, workspaceId);
  if (found) return found;
  const made = (await repo.insertKey(deps.sql, workspaceId, newSecret(), true)) ?? (await repo.internalKey(deps.sql, workspaceId));
  deps.playback.keysChanged();
  return made!;
}

/** A signed token for the video with this code, valid until `exp` (seconds since 1970). */
export async function mintToken(
  deps: Pick<Deps, "sql" | "playback">,
  workspaceId: number,
  code: string,
  claims: Omit<TokenClaims, "kid" | "sub">,
): Promise<{ token: string; expires_at: string }> {
  const key = await serviceKey(deps, workspaceId);
  const token = signToken({ kid: key.id, secret: Buffer.from(key.secret, "base64url") }, { ...claims, sub: code });
  return { token, expires_at: new Date(claims.exp * 1000).toISOString() };
}
