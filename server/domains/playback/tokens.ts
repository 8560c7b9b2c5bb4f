/**
 * Signed playback tokens (README "Signed URLs"): a JWT signed with HMAC-SHA256
 * (`alg: HS256`) by a workspace signing key, the key's id in `kid`, the video's
 * code in `sub` and the expiry in `exp` (seconds since 1970), as Cloudflare
 * Stream's signed URLs. Checked from the token and the key alone: no database.
 *
 * @example
 *   const token = signToken({ kid, secret }, { sub: code, exp: now + 3600 });
 *   verifyToken(token, (kid) => keys.get(kid), now); // { ok: true, claims }
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export interface TokenClaims {
  /** The video's code. */
  sub: string;
  kid: string;
  /** Expiry, seconds since 1970. */
  exp: number;
  /** Not before, seconds since 1970. */
  nbf?: number;
  downloadable?: boolean;
  accessRules?: unknown[];
}

export interface SigningSecret {
  kid: string;
  secret: Uint8Array;
}

export type TokenCheck = { ok: true; claims: TokenClaims } | { ok: false; reason: "malformed" | "unknown_key" | "bad_signature" | "expired" | "not_yet_valid" };

const HEADER = (kid: string) => Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT", kid })).toString("base64url");

const mac = (secret: Uint8Array, input: string) => createHmac("sha256", secret).update(input).digest();

export function signToken(key: SigningSecret, claims: Omit<TokenClaims, "kid">): string {
  const input = `${HEADER(key.kid)}.${Buffer.from(JSON.stringify({ ...claims, kid: key.kid })).toString("base64url")}`;
  return `${input}.${mac(key.secret, input).toString("base64url")}`;
}

function parseJson(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Checks the signature with the key `secretOf(kid)` names (undefined: unknown or revoked) and the time window at `nowSeconds`. */
export function verifyToken(token: string, secretOf: (kid: string) => Uint8Array | undefined, nowSeconds: number): TokenCheck {
  const parts = token.split(".");
  if (parts.length !== 3 || token.length > 4096) return { ok: false, reason: "malformed" };
  const header = parseJson(parts[0]!);
  const claims = parseJson(parts[1]!);
  if (!header || !claims || header.alg !== "HS256") return { ok: false, reason: "malformed" };
  const kid = typeof header.kid === "string" ? header.kid : claims.kid;
  if (typeof kid !== "string" || typeof claims.sub !== "string" || typeof claims.exp !== "number") return { ok: false, reason: "malformed" };
  const secret = secretOf(kid);
  if (!secret) return { ok: false, reason: "unknown_key" };
  const given = Buffer.from(parts[2]!, "base64url");
  const expected = mac(secret, `${parts[0]}.${parts[1]}`);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "bad_signature" };
  if (claims.exp <= nowSeconds) return { ok: false, reason: "expired" };
  if (typeof claims.nbf === "number" && claims.nbf > nowSeconds) return { ok: false, reason: "not_yet_valid" };
  return { ok: true, claims: { ...(claims as unknown as TokenClaims), kid } };
}
