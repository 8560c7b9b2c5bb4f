/**
 * What the media host decides on without a database read per request: each
 * video's protection by code (a few seconds; writes here evict at once) and the
 * live signing keys (reloaded every KEY_REFRESH_MS, so a key revoked in another
 * process stops working within that delay; here at once).
 */
import type { Db } from "../../storage/postgres.ts";
import { TtlCache } from "../../lib/ttl-cache.ts";
import * as repo from "./repo.ts";
import type { Protection } from "./repo.ts";
import { compileAccessRules, type CompiledRule } from "./access-rules.ts";
import { verifyToken } from "./tokens.ts";

/** README "Signed URLs": how long a revoked key may still verify in another process. */
export const KEY_REFRESH_MS = 10_000;
const PROTECTION_TTL_MS = 5_000;
/** An unknown key id reloads the ring at most this often (a key just made in another process). */
const MISS_REFRESH_MS = 1_000;
/** How long a verified token is remembered (its expiry and key are still checked on each use). */
const VERIFIED_TTL_MS = 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface TokenHolder {
  code: string;
  workspaceId: number;
  /** The token's access rules, null when it has none. */
  rules: CompiledRule[] | null;
  downloadable: boolean;
}

export class PlaybackState {
  private readonly protections: TtlCache<Protection | null>;
  /** Tokens whose signature checked out: each segment of a playback repeats its token, verified once. */
  private readonly verified: TtlCache<{ sub: string; kid: string; exp: number; rules: CompiledRule[] | null; downloadable: boolean }>;
  private readonly streamKeys: TtlCache<Uint8Array | null>;
  private keys = new Map<string, { workspaceId: number; secret: Uint8Array }>();
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly sql: Db,
    private readonly now: () => number,
  ) {
    this.protections = new TtlCache(50_000, now);
    this.verified = new TtlCache(50_000, now);
    this.streamKeys = new TtlCache(10_000, now);
  }

  /**
   * The video code and workspace a token is good for now, with what its claims
   * allow (access rules compiled once, `downloadable`), or null (bad signature,
   * expired, its key unknown or revoked, or access rules that are no rules). A token
   * verified before is only checked for expiry and for its key still being live.
   */
  async tokenHolder(token: string): Promise<TokenHolder | null> {
    const seen = this.verified.get(token);
    const keys = await this.keyRing(seen?.kid ?? kidOf(token));
    const nowS = Math.floor(this.now() / 1000);
    if (seen) {
      const key = keys(seen.kid);
      return key && seen.exp > nowS ? { code: seen.sub, workspaceId: key.workspaceId, rules: seen.rules, downloadable: seen.downloadable } : null;
    }
    const check = verifyToken(token, (kid) => keys(kid)?.secret, nowS);
    if (!check.ok) return null;
    const { sub, kid, exp, accessRules } = check.claims;
    const rules = accessRules === undefined ? null : compileAccessRules(accessRules);
    if (accessRules !== undefined && !rules) return null;
    const downloadable = check.claims.downloadable === true;
    this.verified.set(token, { sub, kid, exp, rules, downloadable }, Math.min(VERIFIED_TTL_MS, exp * 1000 - this.now()));
    return { code: sub, workspaceId: keys(kid)!.workspaceId, rules, downloadable };
  }

  /** The protection of the video with this code; null for no such video (or a code that is no UUID). */
  async protection(code: string): Promise<Protection | null> {
    if (!UUID.test(code)) return null;
    const cached = this.protections.get(code);
    if (cached !== undefined) return cached;
    const row = (await repo.protectionOf(this.sql, code)) ?? null;
    this.protections.set(code, row, PROTECTION_TTL_MS);
    return row;
  }

  /** The video's stream key (encrypted streams), or null; a key never changes once made, so it is kept a while. */
  async streamKey(code: string): Promise<Uint8Array | null> {
    if (!UUID.test(code)) return null;
    const cached = this.streamKeys.get(code);
    if (cached !== undefined) return cached;
    const key = (await repo.streamKeyOf(this.sql, code)) ?? null;
    this.streamKeys.set(code, key, key ? VERIFIED_TTL_MS : PROTECTION_TTL_MS);
    return key;
  }

  forgetProtection(code: string): void {
    this.protections.delete(code);
  }

  /** The key ring as of at most KEY_REFRESH_MS ago (sooner for a key it does not know). */
  async keyRing(kid?: string): Promise<(kid: string) => { workspaceId: number; secret: Uint8Array } | undefined> {
    const age = this.now() - this.loadedAt;
    if (age >= KEY_REFRESH_MS || (kid !== undefined && !this.keys.has(kid) && age >= MISS_REFRESH_MS)) await this.reload();
    return (k) => this.keys.get(k);
  }

  /** A key made or revoked in this process counts at once. */
  keysChanged(): void {
    this.loadedAt = Number.NEGATIVE_INFINITY;
  }

  private reload(): Promise<void> {
    this.loading ??= repo
      .liveKeys(this.sql)
      .then((rows) => {
        this.keys = new Map(rows.map((r) => [r.id, { workspaceId: r.workspace_id, secret: Buffer.from(r.secret, "base64url") }]));
        this.loadedAt = this.now();
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }
}

/** The key id a token's header names, without checking anything. */
function kidOf(token: string): string | undefined {
  try {
    const header = JSON.parse(Buffer.from(token.slice(0, token.indexOf(".")), "base64url").toString("utf8")) as { kid?: unknown };
    return typeof header.kid === "string" ? header.kid : undefined;
  } catch {
    return undefined;
  }
}
