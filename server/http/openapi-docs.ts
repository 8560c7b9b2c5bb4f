/**
 * OpenAPI fragments for the spec's error shapes, so every route documents what
 * it can answer besides success. Schemas are TypeBox, which is JSON Schema.
 */
import { t, type TSchema } from "elysia";

export const ErrorSchemas = {
  ApiError: t.Object({ error: t.Object({ code: t.String(), message: t.String() }, { additionalProperties: true }) }, { description: "Application API error" }),
  EventsError: t.Object({ error: t.String(), message: t.String() }, { additionalProperties: true, description: "Events host error" }),
  ValidationError: t.Object({ message: t.String(), errors: t.Record(t.String(), t.Array(t.String())) }, { description: "422 validation" }),
  ModelNotFound: t.Object(
    { message: t.String({ examples: ["No query results for model [Video] 42"] }) },
    { description: "404 on PATCH, DELETE, duplicate, playlists, settings" },
  ),
} as const;

const STATUS_TEXT: Record<number, [string, keyof typeof ErrorSchemas]> = {
  400: ["Invalid payload", "ApiError"],
  401: ["AUTH_REQUIRED or INVALID_TOKEN", "ApiError"],
  403: ["INSUFFICIENT_SCOPE (names `required`)", "ApiError"],
  404: ["Not found", "ApiError"],
  409: ["Conflict", "ApiError"],
  422: ["Validation failed", "ValidationError"],
  429: ["RATE_LIMITED; see Retry-After", "ApiError"],
  503: ["AUTH_UNAVAILABLE; retry", "ApiError"],
};

const json = (schema: TSchema, description: string) => ({ description, content: { "application/json": { schema } } });

/** `detail.responses` for a route: the given error statuses (401/403/429/503 are added for authenticated routes). */
export function errorResponses(statuses: number[], overrides: Partial<Record<number, keyof typeof ErrorSchemas>> = {}) {
  const all = [...new Set([...statuses, 401, 403, 429, 503])].sort();
  return Object.fromEntries(
    all.map((status) => {
      const [text, schema] = STATUS_TEXT[status] ?? ["Error", "ApiError"];
      return [String(status), json(ErrorSchemas[overrides[status] ?? schema], text)];
    }),
  );
}

/** A success response documented without runtime validation (for hot read paths). */
export function documented(status: number, schema: TSchema, description = "OK") {
  return { [String(status)]: json(schema, description) };
}
