/**
 * Posts JSON to the events host. Bodies go as text/plain so the request is a
 * CORS "simple" request (no preflight, and `sendBeacon` accepts it); the
 * events host parses the body as JSON whatever its content type. Failures
 * are swallowed: analytics must never break the page.
 */
export function post(url: string, body: unknown, final = false): void {
  const data = JSON.stringify(body);
  try {
    if (final && navigator.sendBeacon?.(url, data)) return;
    fetch(url, { method: "POST", body: data, keepalive: final || data.length < 60000, headers: { "content-type": "text/plain" }, credentials: "omit" }).catch(
      () => {},
    );
  } catch {
    /* no fetch / blocked: drop */
  }
}
