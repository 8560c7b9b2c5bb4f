import { randomId, read, write } from "./storage.ts";

/**
 * Viewer identity shared by every player on the page. The session joins the
 * `fl_sid` query parameter when present (SPEC.md "Custom events", session
 * bridging; CONTRACT.md prefix table) so a checkout on another domain can
 * carry it; otherwise it lives for the tab (sessionStorage). The device id
 * lives in localStorage.
 */
export interface Identity {
  sessionId: string;
  deviceId: string;
}

const SESSION_KEY = "fl_sid";
const DEVICE_KEY = "fl_did";
const VALID = /^[A-Za-z0-9_-]{8,100}$/;

export function resolveIdentity(search = location.search): Identity {
  let bridged: string | null = null;
  try {
    bridged = new URLSearchParams(search).get(SESSION_KEY);
  } catch {
    /* malformed query: mint below */
  }
  const stored = read("sessionStorage", SESSION_KEY);
  const sessionId = bridged && VALID.test(bridged) ? bridged : stored && VALID.test(stored) ? stored : randomId();
  write("sessionStorage", SESSION_KEY, sessionId);

  let deviceId = read("localStorage", DEVICE_KEY);
  if (!deviceId || !VALID.test(deviceId)) {
    deviceId = randomId();
    write("localStorage", DEVICE_KEY, deviceId);
  }
  return { sessionId, deviceId };
}
