/**
 * Counts every events-host answer once, after it is sent: 2xx as accepted (or
 * deduplicated when the handler said so), anything else as rejected with the
 * error code as reason.
 */
import type { Deps } from "../deps.ts";
import { ingestFor } from "./index.ts";
import { Outcomes } from "./counters.ts";

const deduplicated = new WeakSet<Request>();
const rejected = new WeakMap<Request, string>();

/** Remembers why a request failed (the rendered error body is not visible after the response). */
export function markRejected<E>(request: Request, error: E): E {
  const body = (error as { body?: { error?: unknown } } | null)?.body;
  const code = body?.error;
  if (typeof code === "string") rejected.set(request, code);
  else if (typeof code === "object" && code !== null && typeof (code as { code?: unknown }).code === "string") rejected.set(request, (code as { code: string }).code);
  return error;
}

export function markDeduplicated(request: Request): void {
  deduplicated.add(request);
}

export function countAnswer(deps: Deps, path: string) {
  return ({ request, set }: { request: Request; set: { status?: number | string } }) => {
    if (request.method === "OPTIONS") return;
    const status = typeof set.status === "number" ? set.status : Number(set.status ?? 200) || 200;
    const counters = ingestFor(deps).counters;
    if (status < 400) counters.count(path, deduplicated.has(request) ? Outcomes.deduplicated : Outcomes.accepted);
    // No mark: the body failed parsing or validation before any handler ran.
    else counters.count(path, Outcomes.rejected, rejected.get(request) ?? (status === 400 ? "INVALID_PAYLOAD" : `HTTP_${status}`));
  };
}
