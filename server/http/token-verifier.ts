/**
 * Verifies tokens against Postgres and caches positive answers.
 *
 * docs/api.md "Authentication" 7: revocation is immediate on the application host,
 * within 5 minutes on the events host. The application host therefore only
 * trusts a cache entry while revocations reach it: in-process eviction always,
 * and across processes a Postgres NOTIFY on revoke (the listener clears the whole
 * cache whenever it (re)connects, so a missed notification cannot linger).
 */
import type { Sql } from "../storage/postgres.ts";
import type { Clock } from "../lib/clock.ts";
import { Errors } from "../errors.ts";
import { SingleFlight } from "../lib/single-flight.ts";
import { isScope, type Scope } from "../../contract/scopes.ts";
import { LEGACY_KEY_PREFIX, TOKEN_PREFIX, sha256Hex } from "./tokens.ts";

export interface Auth {
  workspaceId: number;
  /** null for the legacy workspace key. */
  tokenId: number | null;
  scopes: readonly Scope[];
  legacy: boolean;
  /** Identity the rate limits count against. */
  rateKey: string;
}

interface Entry {
  auth: Auth;
  expiresAt: number | null;
  cachedAt: number;
}

export const REVOCATION_CHANNEL = "frameline_token_revoked";
const EVENTS_HOST_TTL_MS = 5 * 60_000;
const API_HOST_TTL_MS = 30_000;
const MAX_ENTRIES = 50_000;

export class TokenVerifier {
  private readonly cache = new Map<string, Entry>();
  /** A cold burst with one token is one lookup, not hundreds. */
  private readonly lookups = new SingleFlight<Entry | undefined>();

  constructor(
    private readonly sql: Sql,
    private readonly clock: Clock,
  ) {}

  /** Resolves the raw credential of a request, or throws the spec's 401/503. */
  async verify(credential: string | undefined, host: "api" | "events"): Promise<Auth> {
    if (credential === undefined || credential === "") throw Errors.authRequired();
    if (!credential.startsWith(TOKEN_PREFIX) && !credential.startsWith(LEGACY_KEY_PREFIX)) throw Errors.invalidToken();
    const now = this.clock.now();
    const hit = this.cached(credential, host, now);
    if (hit) return hit;
    const entry = await this.lookups.run(credential, () => this.lookup(sha256Hex(credential), credential.startsWith(LEGACY_KEY_PREFIX), now));
    if (!entry) throw Errors.invalidToken();
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
    this.cache.set(credential, entry);
    if (entry.expiresAt !== null && entry.expiresAt <= now) throw Errors.invalidToken();
    return entry.auth;
  }

  /**
   * The answer for a credential while its cache entry is fresh, without I/O
   * (the hot path pays no promise for it); undefined when it must be looked up.
   * Keyed by the credential itself so a hit costs no hashing; only the hash is ever stored in Postgres.
   */
  cached(credential: string, host: "api" | "events", now = this.clock.now()): Auth | undefined {
    const entry = this.cache.get(credential);
    if (!entry || now - entry.cachedAt >= (host === "events" ? EVENTS_HOST_TTL_MS : API_HOST_TTL_MS)) return undefined;
    if (entry.expiresAt !== null && entry.expiresAt <= now) throw Errors.invalidToken();
    return entry.auth;
  }

  /** Drops a revoked token at once (called in-process and from NOTIFY). */
  evict(tokenId: number): void {
    for (const [credential, entry] of this.cache) if (entry.auth.tokenId === tokenId) this.cache.delete(credential);
  }

  clear(): void {
    this.cache.clear();
  }

  private async lookup(hash: string, legacy: boolean, now: number): Promise<Entry | undefined> {
    try {
      if (legacy) {
        const [row]: [{ id: number }?] = await this.sql`SELECT id FROM workspaces WHERE legacy_key_hash = ${hash}`;
        if (!row) return undefined;
        return {
          auth: { workspaceId: row.id, tokenId: null, scopes: [], legacy: true, rateKey: `w${row.id}` },
          expiresAt: null,
          cachedAt: now,
        };
      }
      const [row]: [{ id: number; workspace_id: number; scopes: string[]; expires_at: Date | null }?] = await this.sql`
        SELECT id, workspace_id, scopes, expires_at FROM api_tokens WHERE token_hash = ${hash} AND revoked_at IS NULL`;
      if (!row) return undefined;
      return {
        auth: { workspaceId: row.workspace_id, tokenId: row.id, scopes: row.scopes.filter(isScope), legacy: false, rateKey: `t${row.id}` },
        expiresAt: row.expires_at ? row.expires_at.getTime() : null,
        cachedAt: now,
      };
    } catch {
      // Fail closed: we cannot tell a good token from a bad one.
      throw Errors.authUnavailable();
    }
  }
}

/** Subscribes the verifier to cross-process revocations (PostgreSQL servers only). */
export async function listenForRevocations(sql: Sql, verifier: TokenVerifier): Promise<() => Promise<void>> {
  const sub = await sql.listen(
    REVOCATION_CHANNEL,
    (payload) => verifier.evict(Number(payload)),
    () => verifier.clear(),
  );
  return () => sub.unlisten();
}
