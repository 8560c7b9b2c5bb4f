/**
 * The APIs the dashboard uses, and nothing else: the account API (docs/api.md
 * "Dashboard accounts", the session cookie and its CSRF token), the operator API
 * (docs/api.md; the admin key, or a member's session on one workspace's routes)
 * and the application API (docs/api.md, a scoped token the dashboard mints for
 * itself through one of the other two).
 */
import type { SessionTokenMinted, SignedIn, TokenMinted } from "../contract/api.ts";
import { navigate } from "./router.ts";
import * as session from "./session.ts";

/** Every scope the dashboard's own pages need (docs/api.md "Authentication"). */
const DASHBOARD_SCOPES = ["videos:read", "videos:write", "analytics:read", "webhooks:write"];

/**
 * An error body in any of the shapes docs/api.md gives them: `{error: {code, message}}`,
 * the events host's `{error, message}`, a 422's `{message, errors: {field: [text]}}`.
 * Read defensively: a proxy in between may answer anything.
 */
interface ErrorBody {
  error?: unknown;
  message?: unknown;
  errors?: unknown;
}
const asErrorBody = (body: unknown): ErrorBody => (body && typeof body === "object" ? body : {});
const asRecord = (value: unknown): Record<string, unknown> => (value && typeof value === "object" ? (value as Record<string, unknown>) : {});

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(messageOf(status, body));
  }
  /** 422 `{message, errors: {field: [text]}}`. */
  get fieldErrors(): Record<string, string[]> {
    const { errors } = asErrorBody(this.body);
    return this.status === 422 && errors && typeof errors === "object" ? (errors as Record<string, string[]>) : {};
  }
  get code(): string | undefined {
    const { error } = asErrorBody(this.body);
    const code = typeof error === "string" ? error : asRecord(error).code;
    return typeof code === "string" ? code : undefined;
  }
}

function messageOf(status: number, raw: unknown): string {
  const body = asErrorBody(raw);
  const nested = asRecord(body.error).message;
  if (typeof nested === "string" && nested) return nested;
  if (typeof body.message === "string") return body.message;
  if (typeof body.error === "string") return body.error;
  if (status === 0) return "The server could not be reached. Check the connection and try again.";
  return `The server answered ${status}.`;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** A response: `body` is the parsed JSON (or the text, when not JSON), typed by the caller's `T`. */
export interface Reply<T> {
  status: number;
  body: T;
  headers: Headers;
}

/** `credential` goes as a Bearer token; without one the session cookie travels, with its CSRF token on a change. */
async function send<T>(credential: string | undefined, method: string, path: string, opts: CallOptions = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = { Accept: "application/json", ...opts.headers };
  if (credential !== undefined) headers.Authorization = `Bearer ${credential}`;
  else if (method !== "GET") headers["X-CSRF-Token"] = session.account()?.csrf ?? "";
  let body: BodyInit | undefined;
  if (opts.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(opts.body);
  }
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body, signal: opts.signal, cache: "no-store" });
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new HttpError(0, null);
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: keep the text */
  }
  if (!res.ok) throw new HttpError(res.status, parsed);
  // The API's own answer: its shape is the contract the caller names (contract/api.ts), checked against the server's schemas.
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/** A call as the signed-in account or operator; a session or key the server no longer accepts signs out. */
async function signedCall<T>(method: string, path: string, opts?: CallOptions): Promise<T> {
  try {
    return (await send<T>(session.account() ? undefined : session.adminKey(), method, path, opts)).body;
  } catch (error) {
    if (error instanceof HttpError && error.status === 401) {
      session.clearSession();
      navigate("/", true);
    }
    throw error;
  }
}

/** Operator API under /admin/v1: with the admin key, or an account's session on one workspace's routes. */
export const admin = <T = unknown>(method: string, path: string, opts?: CallOptions) => signedCall<T>(method, `/admin/v1${path}`, opts);

/** The account API under /account/v1. */
export const account = <T = unknown>(method: string, path: string, opts?: CallOptions) => signedCall<T>(method, `/account/v1${path}`, opts);

/** Mints (or reuses) this tab's token for the chosen workspace. */
export async function ensureToken(workspaceId: number): Promise<string> {
  const current = session.sessionToken(workspaceId);
  // Renew an hour early so a long page does not die mid-upload.
  if (current && (!current.expires_at || Date.parse(current.expires_at) - Date.now() > 3_600_000)) return current.secret;
  // An account's token carries its role's scopes and ends with the session; an operator mints its own.
  const minted = session.account()
    ? await account<SessionTokenMinted>("POST", `/workspaces/${workspaceId}/api-token`)
    : await admin<TokenMinted>("POST", `/workspaces/${workspaceId}/tokens`, {
        body: { name: "Dashboard session", scopes: DASHBOARD_SCOPES, expires_in_days: 1 },
      });
  session.setSessionToken(workspaceId, { id: minted.token.id, secret: minted.secret, expires_at: minted.token.expires_at });
  return minted.secret;
}

/** Application API under /api/v1, as the current workspace. A revoked or expired session token is replaced once. */
export async function call<T = unknown>(method: string, path: string, opts?: CallOptions): Promise<T> {
  return (await callFull<T>(method, path, opts)).body;
}

export async function callFull<T = unknown>(method: string, path: string, opts?: CallOptions): Promise<Reply<T>> {
  const ws = session.workspace();
  if (!ws) throw new HttpError(401, { error: { code: "NO_WORKSPACE", message: "Choose a workspace first." } });
  const url = path.startsWith("/api/") ? path : `/api/v1${path}`;
  try {
    return await send<T>(await ensureToken(ws.id), method, url, opts);
  } catch (error) {
    if (error instanceof HttpError && error.status === 401 && error.code === "INVALID_TOKEN") {
      session.clearSessionToken(ws.id);
      return send<T>(await ensureToken(ws.id), method, url, opts);
    }
    throw error;
  }
}

/** Current token of the workspace, for calls that need raw XHR (upload progress) or blob downloads. */
export async function currentToken(): Promise<string> {
  const ws = session.workspace();
  if (!ws) throw new HttpError(401, { error: { code: "NO_WORKSPACE", message: "Choose a workspace first." } });
  return ensureToken(ws.id);
}

/** Ends the session (which revokes its tokens), or revokes an operator tab's tokens, and forgets everything. */
export async function signOut(everywhere = false): Promise<void> {
  if (session.account()) await account("POST", everywhere ? "/sign-out-everywhere" : "/sign-out").catch(() => undefined);
  else await Promise.allSettled(session.allSessionTokens().map((t) => admin("DELETE", `/tokens/${t.id}`)));
  session.clearSession();
}

export const qs = (params: Record<string, string | number | undefined | null>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
};

/** A JSON call of the account API before anyone is signed in. */
export async function post<T>(path: string, body: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(body) });
  } catch {
    throw new HttpError(0, null);
  }
  const parsed = await res.json().catch(() => null);
  if (!res.ok) throw new HttpError(res.status, parsed);
  return parsed as T;
}

/** Remembers the signed-in account and opens the workspace picker. */
export function enter(done: SignedIn): void {
  session.clearSession();
  session.setAccount({ email: done.user.email, csrf: done.csrf_token });
  navigate("/workspaces", true);
}
