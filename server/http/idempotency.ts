/**
 * `Idempotency-Key` on write endpoints (docs/api.md "Endpoints"): the first response
 * for a key is kept 24 h in Postgres and replayed with `Idempotency-Replayed:
 * true`; the same key with a different request is 422; a repeat while the first
 * is still running is 409. Server errors are not kept, so a retry runs again.
 */
import type { Deps } from "../deps.ts";
import { ApiError, bodyFor, Errors, validation } from "../errors.ts";
import { json } from "../storage/postgres.ts";
import { isSafeText } from "./schemas.ts";
import type { Auth } from "./token-verifier.ts";
import { sha256Hex } from "./tokens.ts";

const TTL_MS = 24 * 60 * 60_000;

export interface Reply<T = unknown> {
  status: number;
  body: T;
}

export interface IdempotencyContext {
  auth: Auth;
  request: Request;
  set: { status?: number | string; headers: Record<string, string | number> };
}

/** Runs `run` at most once per (workspace, key) and returns its reply's body, setting the status. */
export async function idempotent<T>(deps: Deps, ctx: IdempotencyContext, body: unknown, run: () => Promise<Reply<T>>): Promise<T> {
  const key = ctx.request.headers.get("idempotency-key");
  const reply = key === null ? await run() : ((await runOnce(deps, ctx, key, body, run)) as Reply<T>);
  ctx.set.status = reply.status;
  return reply.body;
}

async function runOnce(deps: Deps, ctx: IdempotencyContext, key: string, body: unknown, run: () => Promise<Reply>): Promise<Reply> {
  if (key.length < 1 || key.length > 255 || !isSafeText(key)) throw validation({ "Idempotency-Key": ["The Idempotency-Key must be 1 to 255 characters."] });
  const { sql, clock } = deps;
  const workspaceId = ctx.auth.workspaceId;
  const url = new URL(ctx.request.url);
  const requestHash = sha256Hex(`${ctx.request.method} ${url.pathname}\n${JSON.stringify(body ?? null)}`);
  const now = new Date(clock.now());
  const expiresAt = new Date(clock.now() + TTL_MS);

  // Claim the key, or take it over when the previous claim has expired.
  const claimed = await sql`
    INSERT INTO idempotency_keys (workspace_id, key, request_hash, state, expires_at)
    VALUES (${workspaceId}, ${key}, ${requestHash}, 'running', ${expiresAt})
    ON CONFLICT (workspace_id, key) DO UPDATE
      SET request_hash = EXCLUDED.request_hash, state = 'running', response_status = NULL, response_body = NULL,
          created_at = ${now}, expires_at = EXCLUDED.expires_at
      WHERE idempotency_keys.expires_at <= ${now}
    RETURNING key`;

  if (claimed.length === 0) {
    const [prior]: [{ request_hash: string; state: string; response_status: number | null; response_body: unknown }?] = await sql`
      SELECT request_hash, state, response_status, response_body FROM idempotency_keys
      WHERE workspace_id = ${workspaceId} AND key = ${key}`;
    if (!prior) return runOnce(deps, ctx, key, body, run); // expired and swept in between
    if (prior.request_hash !== requestHash) throw Errors.idempotencyKeyReused();
    if (prior.state !== "done") throw Errors.idempotencyInProgress();
    ctx.set.headers["Idempotency-Replayed"] = "true";
    if (prior.response_status! >= 400) throw Errors.replayed(prior.response_status!, prior.response_body as Record<string, unknown>);
    return { status: prior.response_status!, body: prior.response_body };
  }

  try {
    const reply = await run();
    await store(deps, workspaceId, key, reply.status, reply.body);
    return reply;
  } catch (error) {
    const keep = error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 409 && error.status !== 429;
    if (keep) await store(deps, workspaceId, key, error.status, bodyFor(error, "api"));
    else await sql`DELETE FROM idempotency_keys WHERE workspace_id = ${workspaceId} AND key = ${key}`.catch(() => {});
    throw error;
  }
}

async function store(deps: Deps, workspaceId: number, key: string, status: number, body: unknown): Promise<void> {
  await deps.sql`
    UPDATE idempotency_keys SET state = 'done', response_status = ${status}, response_body = ${json(deps.sql, body)}
    WHERE workspace_id = ${workspaceId} AND key = ${key}`;
}

/** Removes expired keys; run by the sweeper. */
export async function sweepIdempotencyKeys(deps: Deps): Promise<number> {
  const rows = await deps.sql`DELETE FROM idempotency_keys WHERE expires_at <= ${new Date(deps.clock.now())} RETURNING key`;
  return rows.length;
}
