/** The operator API's guard (docs/api.md): `Authorization: Bearer <ADMIN_KEY>`, compared in constant time. */
import { timingSafeEqual } from "node:crypto";
import { Errors } from "../errors.ts";
import { credentialOf } from "./auth.ts";

export function assertAdminKey(headers: Headers, adminKey: string): void {
  const credential = credentialOf(headers);
  if (credential === undefined || credential === "") throw Errors.authRequired();
  const sent = Buffer.from(credential);
  const expected = Buffer.from(adminKey);
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) throw Errors.invalidToken();
}
