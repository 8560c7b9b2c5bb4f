/**
 * The one renderer of server/errors.ts's table: ApiError as thrown (coded
 * errors in the events host's flat shape on `/v1/...`), Elysia's validation
 * errors as 422 `{message, errors}` (400 INVALID_PAYLOAD on the events host),
 * Postgres failures as their documented outcome, anything else as an opaque
 * 500 with a request id.
 */
import { Elysia, ValidationError } from "elysia";
import type { Log } from "../log.ts";
import { ApiError, bodyFor, Errors, StorageOutcomes, validation } from "../errors.ts";
import { storageFailure } from "../storage/postgres.ts";
import { CORS_HEADERS } from "./cors.ts";
import { pathOf } from "./params.ts";
import { explain, isSafeText, UNSAFE_TEXT } from "./schemas.ts";

interface ValueErrorLike {
  path: string;
  message: string;
  summary?: string;
  value?: unknown;
  /** Elysia lets `error` be a function too; the routes here give texts. */
  schema?: { error?: unknown };
}

function fieldOf(path: string, unnamed = "body"): string {
  const field = path.replace(/^\//, "").replace(/\//g, ".");
  return field === "" ? unnamed : field;
}

/**
 * Elysia decodes a numeric query value on its own ("property" errors) and forgets
 * its name; the query parameter that carried the rejected value is the field.
 */
function unnamedField(error: unknown, request: Request): string {
  const { type, value } = error as { type?: string; value?: unknown };
  if (type !== "property") return "body";
  const names = [...new URL(request.url).searchParams].filter(([, raw]) => raw.trim() !== "" && Number(raw) === value).map(([name]) => name);
  return names.length === 1 ? names[0]! : "body";
}

function validationFromElysia(all: ValueErrorLike[], unnamed = "body"): ApiError {
  const errors: Record<string, string[]> = {};
  for (const item of all) {
    const field = fieldOf(item.path, unnamed);
    const text = sentence(item, field);
    (errors[field] ??= []).includes(text) || errors[field].push(text);
  }
  return validation(Object.keys(errors).length ? errors : { body: ["The request body is invalid."] });
}

/** The 422's text for one refused value: what cannot be stored first, then the schema's own text. */
function sentence(item: ValueErrorLike, field: string): string {
  if (typeof item.value === "string" && !isSafeText(item.value)) return `The ${field} field ${UNSAFE_TEXT}.`;
  const reason = explain(item.schema, item.value);
  if (reason !== undefined) return `The ${field} field ${reason}.`;
  const text = item.schema?.error;
  return typeof text === "string" ? text : `The ${field} field ${describe(item)}.`;
}

function describe(item: ValueErrorLike): string {
  if (/required property/i.test(item.message) || /missing/i.test(item.summary ?? "")) return "is required";
  return item.message.replace(/^Expected union value$/, "has an invalid value").replace(/^Expected /, "must be ");
}

function isEventsHost(request: Request): boolean {
  return new URL(request.url).pathname.startsWith("/v1/");
}

/** The events host's browser paths answer cross-origin pages, errors included. */
const CORS_PATHS = new Set(["/v1/track", "/v1/collect", "/v1/conversion", "/v1/split-test", "/v1/lead-status", "/v1/course-progress", "/v1/resume-position"]);

export function errorsPlugin(log: Log, onRefused: (request: Request, error: ApiError, route: string | undefined) => void = () => {}) {
  return new Elysia({ name: "frameline.errors" }).onError({ as: "global" }, ({ code, error, request, route, set }) => {
    const refusal = safely(log, () => toApiError(log, code, error, request));
    onRefused(request, refusal, route);
    const path = pathOf(request.url);
    if (CORS_PATHS.has(path) || path.startsWith("/v1/playback/")) Object.assign(set.headers, CORS_HEADERS);
    set.status = refusal.status;
    Object.assign(set.headers, refusal.headers);
    return bodyFor(refusal, isEventsHost(request) ? "events" : "api");
  });
}

/** Rendering an error never fails in turn: the last resort is still a 500 in the spec's shape. */
function safely(log: Log, render: () => ApiError): ApiError {
  try {
    return render();
  } catch (failure) {
    const requestId = crypto.randomUUID();
    log.error("error rendering failed", { request_id: requestId, error: String(failure) });
    return Errors.internal(requestId);
  }
}

function toApiError(log: Log, code: string | number, error: unknown, request: Request): ApiError {
  if (error instanceof ApiError) return error;
  // A bounded body refused while it was read (http/json-body.ts) reaches here wrapped as a parse error.
  if (code === "PARSE" && (error as { cause?: unknown }).cause instanceof ApiError) return (error as { cause: ApiError }).cause;
  // A response that fails its own schema is our bug: a 500 below, never a 422 blaming the caller.
  if (code === "VALIDATION" && (error as { type?: string }).type !== "response") {
    const all: ValueErrorLike[] = error instanceof ValidationError ? error.all : [];
    if (isEventsHost(request)) {
      const first = all[0];
      return Errors.invalidPayload(first ? sentence(first, fieldOf(first.path)) : "Invalid payload.");
    }
    return validationFromElysia(all, unnamedField(error, request));
  }
  if (code === "PARSE") return Errors.invalidPayload("The body is not valid JSON.");
  if (code === "NOT_FOUND") return Errors.routeNotFound();
  const failure = storageFailure(error);
  if (failure) {
    log.warn("database refused a request", { path: pathOf(request.url), failure, error: String(error) });
    return StorageOutcomes[failure]();
  }
  const requestId = crypto.randomUUID();
  log.error("unhandled error", {
    request_id: requestId,
    path: new URL(request.url).pathname,
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  return Errors.internal(requestId);
}
