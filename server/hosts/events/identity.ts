/**
 * docs/api.md "Viewer identity": a raw email or phone is hashed on arrival to
 * SHA-256 and MD5 and never stored raw; a phone must be E.164 (`+` or a leading
 * `00`), anything else is dropped.
 */
import { createHash } from "node:crypto";
import { KeyKinds, type ViewerKey } from "../../domains/viewers/service.ts";

export const hex = (algorithm: "sha256" | "md5", value: string) => createHash(algorithm).update(value).digest("hex");

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** `+<country><subscriber>`, or undefined when the number has no `+` and no leading `00`. */
export function e164(phone: string): string | undefined {
  const trimmed = phone.trim();
  let digits: string;
  if (trimmed.startsWith("+")) digits = trimmed.slice(1);
  else if (trimmed.startsWith("00")) digits = trimmed.slice(2);
  else return undefined;
  digits = digits.replace(/[\s().-]/g, "");
  return /^[1-9]\d{5,14}$/.test(digits) ? `+${digits}` : undefined;
}

export interface IdentityInput {
  email?: string;
  email_sha256?: string;
  email_md5?: string;
  phone?: string;
  phone_sha256?: string;
  phone_md5?: string;
  external_id?: string;
}

/** Every identity field of an event, as graph keys (hashes lowercase; raw values hashed here). */
export function identityKeys(input: IdentityInput): ViewerKey[] {
  const keys: ViewerKey[] = [];
  const add = (kind: ViewerKey["kind"], key: string | undefined) => {
    if (key && !keys.some((k) => k.kind === kind && k.key === key)) keys.push({ kind, key });
  };
  if (input.email !== undefined && normaliseEmail(input.email) !== "") {
    const email = normaliseEmail(input.email);
    add(KeyKinds.emailSha256, hex("sha256", email));
    add(KeyKinds.emailMd5, hex("md5", email));
  }
  add(KeyKinds.emailSha256, input.email_sha256?.toLowerCase());
  add(KeyKinds.emailMd5, input.email_md5?.toLowerCase());
  const phone = input.phone === undefined ? undefined : e164(input.phone);
  if (phone) {
    add(KeyKinds.phoneSha256, hex("sha256", phone));
    add(KeyKinds.phoneMd5, hex("md5", phone));
  }
  add(KeyKinds.phoneSha256, input.phone_sha256?.toLowerCase());
  add(KeyKinds.phoneMd5, input.phone_md5?.toLowerCase());
  add(KeyKinds.externalId, input.external_id);
  return keys;
}

/** Field names that carry identity: never kept as event properties. */
export const IDENTITY_FIELDS = ["email", "email_sha256", "email_md5", "phone", "phone_sha256", "phone_md5", "external_id"] as const;
