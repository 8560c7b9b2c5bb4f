/**
 * Counts every answer of the events host's write paths once: the handlers count
 * what they accepted (or answered from an earlier event_id), the errors plugin
 * counts every refusal with its error code as the reason (it renders all of
 * them, bodies that did not parse or validate included).
 */
import type { Deps } from "../deps.ts";
import type { ApiError } from "../errors.ts";
import { pathOf } from "../http/params.ts";
import { Outcomes } from "./counters.ts";

const COUNTED_PATHS = new Set(["/v1/event", "/v1/track", "/v1/collect", "/v1/conversion"]);

export function countAccepted(deps: Deps, path: string, deduplicated = false): void {
  deps.ingest.counters.count(path, deduplicated ? Outcomes.deduplicated : Outcomes.accepted);
}

/** For the errors plugin: a refused POST to a counted path, counted under its error code. */
export function countRefused(deps: Deps, request: Request, error: ApiError): void {
  if (request.method !== "POST") return;
  const path = pathOf(request.url);
  if (COUNTED_PATHS.has(path)) deps.ingest.counters.count(path, Outcomes.rejected, error.code);
}
