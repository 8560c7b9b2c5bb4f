/**
 * The body of a browser custom event (`POST {events_url}/v1/track`, docs/api.md
 * "Custom events", browser path), built so that the events host never has to
 * refuse it: docs/api.md "Limits" are applied here, in the page. `value` becomes
 * the numeric value, identity keys tie the viewer (a raw email or phone is
 * hashed before it leaves the page), every other scalar key is a property.
 */
import type { TrackBody } from "../contract/events.ts";
import type { Identity } from "./identity.ts";

type TrackProperties = NonNullable<TrackBody["properties"]>;

/** docs/api.md "Limits" and the bounds of the /v1/track schema. */
const LIMITS = { properties: 20, key: 40, text: 100, value: 1e9, name: 255, id: 255, profileId: 100 } as const;

/** Hash fields a page may pass itself: kept when well-formed (lowercased), dropped otherwise. */
const HASHES: [string, RegExp][] = [
  ["email_sha256", /^[0-9a-f]{64}$/i],
  ["phone_sha256", /^[0-9a-f]{64}$/i],
  ["email_md5", /^[0-9a-f]{32}$/i],
  ["phone_md5", /^[0-9a-f]{32}$/i],
];

/** Cuts to `max` UTF-16 units without leaving half a surrogate pair behind. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** The events host's name rule (lowercase, `[a-z0-9_-]`, 64 characters); "" is a name it refuses. */
export const normaliseName = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, "")
    .slice(0, 64);

/** A raw phone as the events host reads it: `+` or a leading `00`, separators dropped, 6 to 15 digits; otherwise undefined (dropped). */
export function e164(phone: string): string | undefined {
  const p = phone.trim();
  const digits = (p[0] === "+" ? p.slice(1) : p.slice(0, 2) === "00" ? p.slice(2) : "").replace(/[\s().-]/g, "");
  return /^[1-9]\d{5,14}$/.test(digits) ? "+" + digits : undefined;
}

/**
 * Properties the events host accepts: at most 20, keys cut to 40 characters
 * (a key that then repeats one already kept is dropped), strings cut to 100,
 * finite numbers and booleans as they are; objects, arrays and the rest dropped.
 */
export function limitProperties(input: Record<string, unknown>): TrackProperties {
  const out = new Map<string, string | number | boolean>();
  for (const raw of Object.keys(input)) {
    if (out.size >= LIMITS.properties) break;
    const key = cut(raw, LIMITS.key);
    const v = input[raw];
    const value = typeof v === "string" ? cut(v, LIMITS.text) : typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)) ? v : undefined;
    if (key && value !== undefined && !out.has(key)) out.set(key, value);
  }
  return Object.fromEntries(out);
}

/** SHA-256 hex, or undefined without SubtleCrypto (a plain-http page): the raw value is then dropped, never sent. */
async function sha256(text: string): Promise<string | undefined> {
  try {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  } catch {
    return undefined;
  }
}

/**
 * The /v1/track body of `track(name, properties)`, or undefined when the
 * name has nothing the events host can use (it would answer 400).
 *
 * @example
 *   await trackBody("ws_1", identity, "Signup", { value: 49, email: "A@b.co", plan: "pro" });
 *   // { workspace_code: "ws_1", session_id, device_id, event: "Signup", value: 49, email_sha256: "…", properties: { plan: "pro" } }
 */
export async function trackBody(workspaceCode: string, identity: Identity, name: unknown, input: Record<string, unknown> = {}): Promise<TrackBody | undefined> {
  const event = String(name ?? "");
  if (!normaliseName(event)) return undefined;
  const body: TrackBody & Record<string, unknown> = {
    workspace_code: workspaceCode,
    session_id: identity.sessionId,
    device_id: identity.deviceId,
    // The host normalises; a name too long for its schema goes normalised already.
    event: event.length > LIMITS.name ? normaliseName(event) : event,
  };
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(input || {})) {
    const v = input[key];
    const text = typeof v === "string" || typeof v === "number" ? String(v) : "";
    const hash = HASHES.find(([field]) => field === key);
    if (key === "value") {
      if (typeof v === "number" && Math.abs(v) <= LIMITS.value) body.value = v;
    } else if (key === "event_id") {
      if (text && text.length <= LIMITS.id) body.event_id = text;
    } else if (key === "email") {
      const email = text.trim().toLowerCase();
      const hashed = email && (await sha256(email));
      if (hashed) body.email_sha256 = hashed;
    } else if (key === "phone") {
      const phone = e164(text);
      const hashed = phone && (await sha256(phone));
      if (hashed) body.phone_sha256 = hashed;
    } else if (hash) {
      if (hash[1].test(text)) body[key] = text.toLowerCase();
    } else if (key === "external_id") {
      if (text) body.external_id = cut(text, LIMITS.id);
    } else if (key === "video_code") {
      // The video the event belongs to (the player's user events pass theirs).
      if (text && text.length <= LIMITS.profileId) body.video_code = text;
    } else if (key === "profile_id") {
      if (text && text.length <= LIMITS.profileId) body.profile_id = text;
    } else rest[key] = v;
  }
  const properties = limitProperties(rest);
  if (Object.keys(properties).length) body.properties = properties;
  return body;
}
