/**
 * The dashboard's session cookie and its CSRF check (README "The dashboard"): the
 * cookie is `HttpOnly`, `SameSite=Lax`, and `Secure` when PUBLIC_URL is https;
 * every state-changing call also carries the session's `X-CSRF-Token` header,
 * which another site's page can neither read nor send.
 */
import { timingSafeEqual } from "node:crypto";
import type { Deps } from "../../deps.ts";
import { fail } from "../../errors.ts";
import { findSession, SESSION_MS, type SessionRow } from "../../domains/accounts/service.ts";

export const SESSION_COOKIE = "fl_session";
export const CSRF_HEADER = "x-csrf-token";

/** The session cookie's value, if the request carries one. */
export function sessionCookie(headers: Headers): string | undefined {
  const cookie = headers.get("cookie");
  if (!cookie) return undefined;
  for (const part of cookie.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === SESSION_COOKIE) return value.join("=") || undefined;
  }
  return undefined;
}

/** `Set-Cookie` for a new session, or (`value` undefined) one that clears it. */
export function sessionSetCookie(config: Deps["config"], value: string | undefined): string {
  const secure = config.publicUrl.startsWith("https:") ? "; Secure" : "";
  const age = value === undefined ? 0 : Math.floor(SESSION_MS / 1000);
  return `${SESSION_COOKIE}=${value ?? ""}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${age}${secure}`;
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The request's live session, or 401 AUTH_REQUIRED; a state-changing method
 * without the session's CSRF token is 403 CSRF_REJECTED.
 */
export async function requireSession(deps: Deps, request: Request): Promise<SessionRow> {
  const cookie = sessionCookie(request.headers);
  const session = cookie ? await findSession(deps, cookie) : undefined;
  if (!session) throw fail("AUTH_REQUIRED", cookie ? "Your session has ended. Sign in again." : "Sign in first.");
  if (!SAFE.has(request.method)) {
    const sent = Buffer.from(request.headers.get(CSRF_HEADER) ?? "");
    const expected = Buffer.from(session.csrf_token);
    if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) throw fail("CSRF_REJECTED");
  }
  return session;
}
