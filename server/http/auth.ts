/**
 * The `scope` macro: every application-API route names the scope it needs;
 * the macro authenticates, checks the scope, counts the rate limit and hands
 * the route an `auth` whose workspace is the only one it may touch.
 */
import { Elysia } from "elysia";
import type { Deps } from "../deps.ts";
import { Errors } from "../errors.ts";
import { consume, consumeNow, type RateLimitRule } from "./rate-limit.ts";
import { Scopes, type Scope } from "../../contract/scopes.ts";
import type { Auth } from "./token-verifier.ts";

/** RFC 9745 `Deprecation` date of the legacy workspace key (2026-01-01). */
const LEGACY_DEPRECATION = "@1767225600";

/**
 * The token a request carries (docs/api.md "Authentication" 1): `Authorization: Bearer <token>` or
 * `X-API-Key: <token>`, nothing else; an Authorization header of another form (no scheme, Basic)
 * is a credential refused with INVALID_TOKEN.
 */
export function credentialOf(headers: Headers): string | undefined {
  const authorization = headers.get("authorization");
  if (authorization !== null) {
    // The scheme is case-insensitive; the token is everything after one space, so stray whitespace fails the hash.
    // A bare "Bearer" (HTTP trims "Bearer " to it) sent no token: AUTH_REQUIRED, not INVALID_TOKEN.
    const match = /^bearer(?: (.*))?$/is.exec(authorization);
    if (!match) throw Errors.invalidToken("The Authorization header must be `Bearer <token>`; or send the token as X-API-Key.");
    return match[1] ?? "";
  }
  return headers.get("x-api-key") ?? undefined;
}

type SetHeaders = { headers: Record<string, string | number> };

type Rules = Record<(typeof Scopes)[Scope]["kind"], RateLimitRule>;

/** docs/api.md "Limits": reads and writes per minute per token. */
function rulesOf(limits: Deps["config"]["limits"]): Rules {
  return {
    read: { name: "reads", limit: limits.readsPerMinute, windowMs: 60_000 },
    write: { name: "writes", limit: limits.writesPerMinute, windowMs: 60_000 },
  };
}

/**
 * Authenticates, checks the scope and counts the rate limit of the application
 * API (the events host has its own check, events/http.ts `authorizeEvents`).
 * On the hot path (a cached token, a store that counts locally) nothing here awaits.
 */
async function authorize(deps: Deps, rules: Rules, request: Request, set: SetHeaders, scope: Scope): Promise<Auth> {
  const credential = credentialOf(request.headers);
  const auth = (credential && deps.tokens.cached(credential, "api")) || (await deps.tokens.verify(credential, "api"));
  if (auth.legacy) {
    set.headers.Deprecation = LEGACY_DEPRECATION;
  } else if (!auth.scopes.includes(scope)) {
    throw Errors.insufficientScope(scope);
  }
  const rule = rules[Scopes[scope].kind];
  try {
    const now = deps.clock.now();
    const { headers } = consumeNow(deps.rateLimits, auth.rateKey, rule, now) ?? (await consume(deps.rateLimits, auth.rateKey, rule, now));
    Object.assign(set.headers, headers);
  } catch (error) {
    if (auth.legacy) (error as { headers: Record<string, string> }).headers.Deprecation = LEGACY_DEPRECATION;
    throw error;
  }
  return auth;
}

export function authPlugin(deps: Deps) {
  const rules = rulesOf(deps.config.limits);
  // Authenticated in `transform`, which runs before body/query validation: a call
  // without a valid token gets the spec's 401, never a 422 describing the route.
  // `auth` is a decorator the transform fills in, which costs less per request than a resolve step;
  // it holds no Auth until then, so its type is declared over an `undefined` placeholder.
  return new Elysia().decorate("auth", undefined as unknown as Auth).macro({
    scope: (scope: Scope) => ({
      async transform(context) {
        (context as { auth: Auth }).auth = await authorize(deps, rules, context.request, context.set, scope);
      },
    }),
  });
}
