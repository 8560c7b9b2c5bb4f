import { randomId, read, write } from "./storage.ts";

/**
 * The viewer's ids on this page, the same for the player and the tracker. The
 * session joins the `fl_sid` query parameter when it is a valid id (docs/api.md
 * "Custom events", session bridging; docs/api.md prefix table) so a checkout
 * on another domain can carry it; otherwise it lives for the tab
 * (sessionStorage). The device id lives in localStorage.
 */
export interface Identity {
  sessionId: string;
  deviceId: string;
}

const SESSION_KEY = "fl_sid";
const DEVICE_KEY = "fl_did";

/** An id the events host keeps as it is: 8 to 100 URL-safe characters (ours are 32 hex). */
export const isId = (value: unknown): value is string => typeof value === "string" && /^[\w-]{8,100}$/.test(value);

export function resolveIdentity(search = location.search): Identity {
  let bridged: string | null = null;
  try {
    bridged = new URLSearchParams(search).get(SESSION_KEY);
  } catch {
    /* malformed query: mint below */
  }
  const stored = read("sessionStorage", SESSION_KEY);
  const sessionId = isId(bridged) ? bridged : isId(stored) ? stored : randomId();
  write("sessionStorage", SESSION_KEY, sessionId);

  let deviceId = read("localStorage", DEVICE_KEY);
  if (!isId(deviceId)) {
    deviceId = randomId();
    write("localStorage", DEVICE_KEY, deviceId);
  }
  return { sessionId, deviceId };
}
