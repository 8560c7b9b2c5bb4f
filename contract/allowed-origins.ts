/**
 * Which sites may play a protected video (README "Playback protection"), shared by
 * the media host, the token route and the player. An entry is a host name (any
 * port), `host:port` (that port only) or `*.example.com` (any subdomain, not the
 * bare domain); an empty list allows any site. Cloudflare Stream's
 * `allowedOrigins` reads the same way.
 *
 * @example
 *   originAllowed(["example.com", "*.shop.io", "localhost:3000"], "https://www.shop.io"); // true
 *   originAllowed(["example.com"], "https://evil.test"); // false
 */

export const MAX_ALLOWED_ORIGINS = 50;

/** `*.`?, DNS labels joined by dots, `:port`? (a literal, so a bundle that never validates drops it). */
const PATTERN = /^(\*\.)?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::(\d{1,5}))?$/;

/** Why an entry is not a valid pattern, or null when it is. */
export function originPatternError(entry: string): string | null {
  const m = PATTERN.exec(entry);
  if (!m) return `"${entry.slice(0, 80)}" is not a host name, host:port or *.domain.`;
  if (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 65535)) return `"${entry}" has a port outside 1 to 65535.`;
  return null;
}

/** The host and port of an origin or page URL (`https://a.b:8080/x` → ["a.b", "8080"]); null when unreadable. */
function hostOf(origin: string): [host: string, port: string] | null {
  try {
    const url = new URL(origin);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    return [url.hostname.toLowerCase(), url.port || (url.protocol === "https:" ? "443" : "80")];
  } catch {
    return null;
  }
}

function matches(entry: string, host: string, port: string): boolean {
  const colon = entry.lastIndexOf(":");
  const [name, wanted] = colon > 0 ? [entry.slice(0, colon), entry.slice(colon + 1)] : [entry, null];
  if (wanted !== null && wanted !== port) return false;
  if (name.startsWith("*.")) return host.endsWith(name.slice(1)) && host.length > name.length - 1;
  return host === name;
}

/** True when the page at `origin` (an origin or a page URL) may play; an empty list allows any, a missing origin none. */
export function originAllowed(allowed: readonly string[], origin: string | null | undefined): boolean {
  if (allowed.length === 0) return true;
  const at = origin ? hostOf(origin) : null;
  if (!at) return false;
  return allowed.some((entry) => matches(entry.toLowerCase(), at[0], at[1]));
}
