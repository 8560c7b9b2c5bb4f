/**
 * Standard Webhooks signing (docs/api.md "Webhook signature headers"):
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`.
 *
 * The HMAC key of a subscription's secret:
 * - a secret of the form `whsec_<base64>` (what we generate, and what Standard
 *   Webhooks libraries hand out) is used as those libraries use it: the
 *   base64-decoded bytes after the prefix;
 * - any other secret a caller supplies (16 to 128 characters) is used as its
 *   UTF-8 bytes, so `HMAC(secret, ...)` in any language verifies it.
 * Generated secrets are never returned (docs/api.md), so their form is internal.
 */
import { createHmac, randomBytes } from "node:crypto";

const PREFIX = "whsec_";

export function generateSecret(): string {
  return PREFIX + randomBytes(32).toString("base64");
}

export function signingKey(secret: string): Buffer {
  if (secret.startsWith(PREFIX)) {
    const encoded = secret.slice(PREFIX.length);
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) && encoded.length % 4 === 0) return Buffer.from(encoded, "base64");
  }
  return Buffer.from(secret, "utf8");
}

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", signingKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** The three headers of one delivery attempt. */
export function signatureHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": sign(secret, id, timestampSeconds, body),
  };
}
