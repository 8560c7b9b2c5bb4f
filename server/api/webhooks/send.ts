/**
 * One signed HTTP attempt of a delivery: a 15 s budget (connect, answer and the
 * part of the body we read), no redirects followed, at most a few KB of the
 * answer read, and the target re-vetted and pinned before connecting (ssrf.ts).
 */
import type { Envelope } from "./model.ts";
import { signatureHeaders } from "./signing.ts";
import { pinTarget, UnsafeTargetError } from "./ssrf.ts";
import { errorCode } from "../../lib/error-code.ts";

export const ATTEMPT_TIMEOUT_MS = 15_000;
const MAX_BODY_BYTES = 4096;

export interface AttemptResult {
  ok: boolean;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  /** Retry-After of the answer, in ms from `nowMs`. */
  retryAfterMs?: number;
  /** Why it failed, for logs and the test endpoint. */
  error?: string;
  /** The first bytes of the answer body. */
  bodySnippet?: string;
}

export interface AttemptOptions {
  allowPrivate: boolean;
  nowMs: number;
  timeoutMs?: number;
  userAgent?: string;
}

export function serializeEnvelope(envelope: Envelope): string {
  return JSON.stringify({ id: envelope.id, event: envelope.event, workspace_id: envelope.workspace_id, created_at: envelope.created_at, data: envelope.data });
}

/** Seconds or an HTTP date (RFC 9110 10.2.3). */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

async function readSnippet(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES));
}

export async function attemptDelivery(url: string, secret: string, envelope: Envelope, options: AttemptOptions): Promise<AttemptResult> {
  const body = serializeEnvelope(envelope);
  const timestamp = Math.floor(options.nowMs / 1000);
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": options.userAgent ?? "Frameline-Webhooks/1.0",
    ...signatureHeaders(secret, envelope.id, timestamp, body),
  };
  const signal = AbortSignal.timeout(options.timeoutMs ?? ATTEMPT_TIMEOUT_MS);
  try {
    // The name lookup counts against the same budget as the request.
    const target = await Promise.race([
      pinTarget(url, options.allowPrivate),
      new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })),
    ]);
    if (target.host) headers.Host = target.host;
    const response = await fetch(target.url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal,
      proxy: false,
      tls: target.serverName ? { serverName: target.serverName } : undefined,
    } as RequestInit);
    const snippet = await readSnippet(response);
    const status = response.status;
    if (status >= 200 && status < 300) return { ok: true, status, bodySnippet: snippet };
    const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), options.nowMs);
    const error = status >= 300 && status < 400 ? `receiver answered a redirect (HTTP ${status}), which is not followed` : `receiver answered HTTP ${status}`;
    return { ok: false, status, retryAfterMs, error, bodySnippet: snippet };
  } catch (error) {
    if (error instanceof UnsafeTargetError) return { ok: false, error: `refused: ${error.message}` };
    if (signal.aborted) return { ok: false, error: `timed out after ${(options.timeoutMs ?? ATTEMPT_TIMEOUT_MS) / 1000} s` };
    const code = errorCode(error);
    return { ok: false, error: `could not connect${code ? ` (${code})` : ""}: ${(error as Error).message ?? String(error)}`.slice(0, 300) };
  }
}
