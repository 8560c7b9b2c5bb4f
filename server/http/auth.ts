/**
 * The `scope` macro: every application-API route names the scope it needs;
 * the macro authenticates, checks the scope, counts the rate limit and hands
 * the route an `auth` whose workspace is the only one it may touch.
 */
import { Elysia } from "elysia";
import type { Deps } from "../deps.ts";
import { Errors } from "../errors.ts";
import { consume, consumeNow, type RateLimitOutcome, type RateLimitRule } from "./rate-limit.ts";
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
    // Compared by hand rather than with a regular expression: this runs on every API request.
    const scheme = authorization.slice(0, 6);
    if ((scheme === "Bearer" || scheme.toLowerCase() === "bearer") && (authorization.length === 6 || authorization[6] === " ")) {
      return authorization.slice(7);
    }
    throw Errors.invalidToken("The Authorization header must be `Bearer <token>`; or send the token as X-API-Key.");
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
 * On the hot path (a cached token, a store that counts locally) it answers
 * synchronously: no promise, no await; otherwise it returns a promise.
 */
function authorize(deps: Deps, rules: Rules, request: Request, set: SetHeaders, scope: Scope): Auth | Promise<Auth> {
  const credential = credentialOf(request.headers);
  const auth = credential ? deps.tokens.cached(credential, "api") : undefined;
  if (auth === undefined) return deps.tokens.verify(credential, "api").then((verified) => admit(deps, rules, verified, set, scope));
  return admit(deps, rules, auth, set, scope);
}

/** The scope check and the rate limit of an authenticated request (synchronous when the store counts locally). */
function admit(deps: Deps, rules: Rules, auth: Auth, set: SetHeaders, scope: Scope): Auth | Promise<Auth> {
  if (auth.legacy) {
    set.headers.Deprecation = LEGACY_DEPRECATION;
  } else if (!auth.scopes.includes(scope)) {
    throw Errors.insufficientScope(scope);
  }
  const rule = rules[Scopes[scope].kind];
  const now = deps.clock.now();
  const counted = (outcome: RateLimitOutcome) => {
    Object.assign(set.headers, outcome.headers);
    return auth;
  };
  const refused = (error: unknown): never => {
    if (auth.legacy) (error as { headers: Record<string, string> }).headers.Deprecation = LEGACY_DEPRECATION;
    throw error;
  };
  let local: RateLimitOutcome | undefined;
  try {
    local = consumeNow(deps.rateLimits, auth.rateKey, rule, now);
  } catch (error) {
    refused(error);
  }
  return local ? counted(local) : consume(deps.rateLimits, auth.rateKey, rule, now).then(counted, refused);
}

export function authPlugin(deps: Deps) {
  const rules = rulesOf(deps.config.limits);
  // Authenticated in `transform`, which runs before body/query validation: a call
  // without a valid token gets the spec's 401, never a 422 describing the route.
  // `auth` is a decorator the transform fills in, which costs less per request than a resolve step;
  // it holds no Auth until then, so its type is declared over an `undefined` placeholder.
  return new Elysia().decorate("auth", undefined as unknown as Auth).macro({
    scope: (scope: Scope) => ({
      // Not an async function: Elysia awaits a transform only when it returns a promise, so the hot path costs none.
      transform(context) {
        const auth = authorize(deps, rules, context.request, context.set, scope);
        if (!(auth instanceof Promise)) {
          (context as { auth: Auth }).auth = auth;
          return;
        }
        return auth.then((verified) => {
          (context as { auth: Auth }).auth = verified;
        });
      },
    }),
  });
}
