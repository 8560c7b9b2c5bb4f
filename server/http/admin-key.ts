/** The guards of a fixed secret, compared in constant time: the operator API's `Authorization: Bearer <ADMIN_KEY>` (docs/api.md), and METRICS_TOKEN. */
import { timingSafeEqual } from "node:crypto";
import { Errors } from "../errors.ts";
import { credentialOf } from "./auth.ts";

export function assertAdminKey(headers: Headers, adminKey: string): void {
  assertBearer(headers, adminKey);
}

/** The request carries `secret` as its token (the admin key, METRICS_TOKEN), else 401 AUTH_REQUIRED or INVALID_TOKEN. */
export function assertBearer(headers: Headers, secret: string): void {
  const credential = credentialOf(headers);
  if (credential === undefined || credential === "") throw Errors.authRequired();
  const sent = Buffer.from(credential);
  const expected = Buffer.from(secret);
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) throw Errors.invalidToken();
}
