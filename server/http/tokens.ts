/** Token formats of docs/api.md and the one-way hash that is all we store. */
import { createHash, randomBytes } from "node:crypto";

export const TOKEN_PREFIX = "flt_";
export const LEGACY_KEY_PREFIX = "flk_";

/** `flt_` + 43 URL-safe characters (256 random bits). */
export function newToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

/** `flk_` + 40 hex characters. */
export function newLegacyKey(): string {
  return LEGACY_KEY_PREFIX + randomBytes(20).toString("hex");
}

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}
