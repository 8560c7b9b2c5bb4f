/**
 * Events-host plumbing shared by /v1/event, /v1/track, /v1/collect and
 * /v1/conversion: strict JSON bodies (unknown fields → 400 INVALID_PAYLOAD),
 * token checks, client IPs, rate limits and CORS. Errors thrown here are
 * written in the events host's `{error: CODE, message}` shape by the renderer.
 */
import type { TObject } from "@sinclair/typebox";
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import { consume, consumeNow, type RateLimitRule } from "../../http/rate-limit.ts";
import type { Scope } from "../../../contract/scopes.ts";
import type { Auth } from "../../http/token-verifier.ts";
import { withCors } from "../../http/cors.ts";

/**
 * Elysia strips unknown properties during validation, and docs/api.md says an
 * unknown field is rejected: this `transform` hook (it runs before validation)
 * checks the body's top-level keys against the schema.
 */
export function rejectUnknownFields(schema: TObject) {
  const allowed = new Set(Object.keys(schema.properties));
  return ({ body }: { body: unknown }) => {
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw Errors.invalidPayload("The body must be a JSON object.");
    for (const key of Object.keys(body)) if (!allowed.has(key)) throw Errors.invalidPayload(`Unknown field "${key}".`);
  };
}

/**
 * `navigator.sendBeacon` cannot send `application/json` cross-origin without a
 * preflight, so the browser paths also take JSON sent as `text/plain`.
 */
export function parseTextJson({ request, contentType }: { request: Request; contentType: string }): Promise<unknown> | undefined {
  // Not async: the JSON bodies of the hot paths pass through without a promise.
  if (!contentType.startsWith("text/plain")) return undefined;
  return request.text().then((text) => {
    try {
      return JSON.parse(text);
    } catch {
      throw Errors.invalidPayload("The body is not valid JSON.");
    }
  });
}

/**
 * Token check of the events host (docs/api.md "Authentication" 6-8): the legacy key
 * is refused with 403.
 * The application API's 60 writes/min per token do not apply here; the events
 * host has its own limits (600/min per workspace, 120/min per IP).
 */
export async function authorizeEvents(deps: Deps, credential: string | undefined, scope: Scope): Promise<Auth> {
  // A cached token answers without I/O (the verifier collapses a cold burst's lookups into one).
  const auth = (credential && deps.tokens.cached(credential, "events")) || (await deps.tokens.verify(credential, "events"));
  if (auth.legacy) throw Errors.legacyKeyRefused();
  if (!auth.scopes.includes(scope)) throw Errors.insufficientScope(scope);
  return auth;
}

export interface SocketInfo {
  requestIP?(request: Request): { address: string } | null;
}

/** Longer than any IPv6 address: a forwarded "address" beyond it is cut, so a rate-limit key always fits its column. */
const MAX_IP_LENGTH = 64;

export function clientIp(deps: Deps, request: Request, server: SocketInfo | null | undefined): string {
  if (deps.config.trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for");
    if (forwarded) return forwarded.split(",")[0]!.trim().slice(0, MAX_IP_LENGTH);
  }
  return server?.requestIP?.(request)?.address ?? "unknown";
}

/**
 * Counts one hit against each rule; throws 429 RATE_LIMITED with `Retry-After`
 * and the refusing rule's `RateLimit` headers. Accepted
 * answers carry no `RateLimit` headers here: two limits apply to each call (one
 * header pair would describe only one of them) and they cost the hottest path
 * about a tenth of its time. Returns a promise only when the store must be asked
 * over the network (a store that counts locally answers at once).
 */
export function limit(deps: Deps, checks: { key: string; rule: RateLimitRule }[]): Promise<void> | undefined {
  const now = deps.clock.now();
  for (let i = 0; i < checks.length; i++) {
    const { key, rule } = checks[i]!;
    if (consumeNow(deps.rateLimits, key, rule, now) === undefined) return limitRemote(deps, checks.slice(i), now);
  }
  return undefined;
}

async function limitRemote(deps: Deps, checks: { key: string; rule: RateLimitRule }[], now: number): Promise<void> {
  for (const { key, rule } of checks) await consume(deps.rateLimits, key, rule, now);
}

export const perMinute = (name: string, limit: number): RateLimitRule => ({ name, limit, windowMs: 60_000 });

/**
 * Route options every public browser path shares: JSON also as `text/plain`
 * (listing the parsers lets the OpenAPI description show the body), CORS set
 * before validation (the errors plugin covers bodies that do not parse) and
 * unknown fields refused.
 */
export function browserRoute<S extends TObject>(body: S) {
  return {
    parse: [parseTextJson, "json" as const],
    transform: [withCors, rejectUnknownFields(body)],
    body,
  };
}
