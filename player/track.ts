import type { TrackBody } from "./types.ts";
import type { Identity } from "./identity.ts";
import { post } from "./transport.ts";

/** Identity keys never travel as properties (SPEC.md "Custom events", browser path). */
const IDENTITY_KEYS = ["email", "phone", "external_id", "profile_id"];
/** SPEC.md "Custom events": up to 20 properties, key at most 40 characters, value at most 100. */
const MAX_PROPS = 20;

async function sha256(text: string): Promise<string | undefined> {
  try {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  } catch {
    return undefined; // no SubtleCrypto (insecure context): the raw email is dropped, never sent
  }
}

/**
 * Builds the body of a browser custom event: `value` becomes the numeric value,
 * a raw email is hashed (SHA-256 of lower(trim)) and a raw E.164 phone
 * (`+` or `00`) likewise before it leaves the page, `external_id` ties the
 * viewer, other scalar keys are properties within the spec's limits (anything
 * else would get the whole event refused).
 */
export async function trackBody(workspaceCode: string, identity: Identity, name: string, properties: Record<string, unknown> = {}): Promise<TrackBody> {
  const props: Record<string, unknown> = {};
  const body: TrackBody = {
    workspace_code: workspaceCode,
    session_id: identity.sessionId,
    device_id: identity.deviceId,
    event: String(name),
    properties: props,
  };
  for (const k in properties) {
    const v = properties[k];
    if (k === "value") {
      if (typeof v === "number" && Number.isFinite(v)) body.value = v;
    } else if (k === "email") {
      if (typeof v === "string" && v.trim()) body.email_sha256 = await sha256(v.trim().toLowerCase());
    } else if (k === "phone") {
      const raw = String(v ?? "").replace(/[\s().-]/g, "");
      const e164 = /^\+\d{6,15}$/.test(raw) ? raw : /^00\d{6,15}$/.test(raw) ? "+" + raw.slice(2) : "";
      if (e164) body.phone_sha256 = await sha256(e164);
    } else if (k === "external_id") {
      if (v != null && v !== "") body.external_id = String(v).slice(0, 255);
    } else if (!IDENTITY_KEYS.includes(k) && k.length <= 40 && Object.keys(props).length < MAX_PROPS) {
      if (typeof v === "string") props[k] = v.slice(0, 100);
      else if ((typeof v === "number" && Number.isFinite(v)) || typeof v === "boolean") props[k] = v;
    }
  }
  return body;
}

/** The global object of SPEC.md "Custom events" (client surface). */
export interface FramelineGlobal {
  track(name: string, properties?: Record<string, unknown>): void;
  getSessionId(): string;
  getDeviceId(): string;
}

export function createGlobal(eventsUrl: string, workspaceCode: string, identity: Identity): FramelineGlobal {
  const url = eventsUrl.replace(/\/$/, "") + "/v1/track";
  return {
    track(name, properties) {
      if (!name) return;
      trackBody(workspaceCode, identity, name, properties || {}).then(
        (b) => post(url, b),
        () => {},
      );
    },
    getSessionId: () => identity.sessionId,
    getDeviceId: () => identity.deviceId,
  };
}
