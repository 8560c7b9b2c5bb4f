/**
 * What the OpenAPI description says a route answers: the error body shapes of
 * docs/api.md "Errors" as named components, one helper that writes a route's
 * `detail.responses` (pure documentation: nothing is checked at run time), and
 * the plugin that serves the description with them.
 */
import { type DocumentDecoration, Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
import { Kind, type TSchema, Type } from "@sinclair/typebox";

/** docs/api.md "Errors": the body shapes, each defined once and referenced by every route that answers it. */
export const ErrorSchemas = {
  ApiError: Type.Object(
    {
      error: Type.Object(
        {
          code: Type.String({ description: "The error's code, e.g. NOT_FOUND." }),
          message: Type.String(),
          required: Type.Optional(Type.String({ description: "INSUFFICIENT_SCOPE: the scope the route needs." })),
          offset: Type.Optional(Type.Integer({ description: "OFFSET_MISMATCH, INCOMPLETE, SIZE_EXCEEDED: the bytes the server holds." })),
          size: Type.Optional(Type.Integer()),
          in_use: Type.Optional(Type.Integer()),
          limit: Type.Optional(Type.Integer()),
          request_id: Type.Optional(Type.String({ description: "INTERNAL_ERROR: the id in the service's log." })),
          video_code: Type.Optional(Type.String()),
        },
        { additionalProperties: true },
      ),
    },
    { additionalProperties: true, description: "The application and operator APIs' error: `{error: {code, message, ...}}`." },
  ),
  EventsError: Type.Object(
    { error: Type.String({ description: "The code, e.g. INVALID_PAYLOAD." }), message: Type.String() },
    { additionalProperties: true, description: "The events host's error (`/v1/...`): `{error: CODE, message}`." },
  ),
  ValidationError: Type.Object(
    { message: Type.String(), errors: Type.Record(Type.String(), Type.Array(Type.String()), { description: "The texts of each refused field." }) },
    { additionalProperties: false, description: "422 validation: `{message, errors: {field: [text]}}`." },
  ),
  ModelNotFound: Type.Object(
    { message: Type.String({ pattern: "^No query results for model \\[", examples: ["No query results for model [Video] 42"] }) },
    { additionalProperties: false, description: "404 of PATCH, DELETE, duplicate, playlist and settings calls." },
  ),
  FlatError: Type.Object(
    { error: Type.String({ examples: ["unknown_workspace"] }) },
    { additionalProperties: false, description: '`{error: "<code in lower case>"}`: an automation call whose token\'s workspace no longer exists.' },
  ),
  // Not an error of the table: GET /ready answers its checks in one shape, 200 or 503 (README "Probes and metrics").
  Readiness: Type.Object(
    {
      ready: Type.Boolean({ description: "True when every engine answered." }),
      checks: Type.Object(
        {
          postgres: Type.String({ examples: ["ok"] }),
          clickhouse: Type.String({ examples: ["unreachable: ECONNREFUSED"] }),
          blobs: Type.String({ description: "The media store.", examples: ["ok"] }),
        },
        { additionalProperties: false, description: "Each engine: `ok`, or why not (`timeout`, `unreachable: <code>`, `error: <code>`)." },
      ),
      spool: Type.Object(
        { batches: Type.Integer(), rows: Type.Integer(), refused: Type.Integer() },
        { additionalProperties: false, description: "Event batches kept in PostgreSQL while ClickHouse is away, and those ClickHouse refused." },
      ),
    },
    { additionalProperties: false, description: "`GET /ready`: each engine's state and the ingest spool's depth." },
  ),
} as const;

export type ErrorShape = keyof typeof ErrorSchemas;
type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 422 | 429 | 500 | 503 | 507;
/** A status in the host's usual shape, or a status with the shapes it is answered in (several: any of them). */
export type DocumentedError = ErrorStatus | readonly [ErrorStatus, ErrorShape, ...ErrorShape[]];

type Responses = NonNullable<DocumentDecoration["responses"]>;
type ResponseObject = Extract<Responses[string], { description: string }>;
/** A success status with its JSON body schema, or a whole response object (a file). */
export type Success = Partial<Record<200 | 201 | 202, TSchema | ResponseObject>>;

const HOSTS = {
  /** A token route of the application API (docs/api.md "Authentication" 6, "Limits"). */
  api: { usual: (status: number): ErrorShape => (status === 422 ? "ValidationError" : "ApiError"), always: [401, 403, 429, 503] },
  /** The operator API: the admin key, no rate limit. */
  operator: { usual: (status: number): ErrorShape => (status === 422 ? "ValidationError" : "ApiError"), always: [401, 503] },
  /** The dashboard's accounts (`/account/v1`): a session cookie, sign-in limited per address. */
  account: { usual: (status: number): ErrorShape => (status === 422 ? "ValidationError" : "ApiError"), always: [401, 503] },
  /** The events host with a token (`POST /v1/event`). */
  events: { usual: (): ErrorShape => "EventsError", always: [400, 401, 403, 429, 503] },
  /** The events host's browser routes: no token; a body or query it cannot use is 400; limited per IP. */
  browser: { usual: (): ErrorShape => "EventsError", always: [400, 429] },
  /** The operator's probes (`/ready`, `/metrics`): no rate limit, no database behind a token. */
  probe: { usual: (): ErrorShape => "ApiError", always: [] },
} as const;
export type Host = keyof typeof HOSTS;

const STATUS_TEXT: Record<ErrorStatus, string> = {
  400: "The body, a query value or a header cannot be used (INVALID_PAYLOAD and the other 400 codes)",
  401: "AUTH_REQUIRED or INVALID_TOKEN",
  403: "INSUFFICIENT_SCOPE (names `required`); on a session, CSRF_REJECTED or INSUFFICIENT_ROLE",
  404: "Not found",
  409: "Conflict: IDEMPOTENCY_IN_PROGRESS, CONFLICT, or an upload's offset",
  412: "TUS_VERSION_UNSUPPORTED",
  413: "PAYLOAD_TOO_LARGE",
  422: "The given data was invalid",
  429: "RATE_LIMITED; retry after Retry-After",
  500: "The write did not happen (WRITE_FAILED, DEPLOY_FAILED); retry",
  503: "Unavailable for a moment (AUTH_UNAVAILABLE, DATABASE_BUSY, DATABASE_UNAVAILABLE); retry after Retry-After",
  507: "INSUFFICIENT_STORAGE",
};

/** Answers in a shape of their own, with their own text and no Retry-After. */
const OWN_TEXT: Partial<Record<ErrorShape, string>> = {
  Readiness: "Not ready: an engine did not answer in time; `checks` names which and why.",
};

const RETRY_AFTER = { "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer" } } } as const;
const ref = (shape: ErrorShape) => ({ $ref: `#/components/schemas/${shape}` });
const isSchema = (value: TSchema | ResponseObject): value is TSchema => Kind in value;

/**
 * `detail.responses` of a route: its success answers (left out where the route's
 * `response` option already documents them) and its error statuses, each in its
 * host's shape unless named, plus the statuses every route of the host can answer.
 */
export function documented(host: Host, errors: readonly DocumentedError[], success: Success = {}): Responses {
  const { usual, always } = HOSTS[host];
  const shapes = new Map<number, readonly ErrorShape[]>(always.map((status) => [status, [usual(status)]]));
  for (const entry of errors) {
    const [status, ...named] = typeof entry === "number" ? [entry] : entry;
    shapes.set(status, named.length ? named : [usual(status)]);
  }
  const out: Responses = {};
  for (const [status, body] of Object.entries(success) as [string, TSchema | ResponseObject][]) {
    out[status] = isSchema(body) ? { description: "OK", content: { "application/json": { schema: body } } } : body;
  }
  for (const [status, list] of [...shapes].sort(([a], [b]) => a - b)) {
    const schema = list.length === 1 ? ref(list[0]!) : { oneOf: list.map(ref) };
    const own = list.length === 1 ? OWN_TEXT[list[0]!] : undefined;
    out[status] = {
      description: own ?? STATUS_TEXT[status as ErrorStatus],
      content: { "application/json": { schema } },
      ...(own === undefined && (status === 429 || status === 503) ? { headers: RETRY_AFTER } : {}),
    };
  }
  return out;
}

type OpenApiConfig = NonNullable<Parameters<typeof openapi>[0]>;
interface Operation {
  responses?: Record<string, unknown>;
}
interface RouteLike {
  method: string;
  path: string;
  hooks?: { detail?: { responses?: Record<string, unknown> } };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * An answer's schema as a generator should read it: Elysia's `t.Integer` also takes a
 * numeric string as input, but an answer always holds a JSON integer; and `nullable`
 * is no word of OpenAPI 3.1 (the plugin writes it beside a type that already allows null).
 */
function asAnswered(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(asAnswered);
  if (!isRecord(node)) return node;
  const { nullable: _, ...schema } = node;
  const variants: unknown[] = Array.isArray(schema.anyOf) ? schema.anyOf : [];
  const [asText, asInteger] = variants;
  if (variants.length === 2 && isRecord(asText) && asText.format === "integer" && asText.type === "string" && isRecord(asInteger)) {
    const { anyOf: _variants, ...rest } = schema;
    return asAnswered({ ...rest, ...asInteger });
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, asAnswered(value)]));
}

/**
 * @elysiajs/openapi 1.4 writes a route's `response` schemas over its
 * `detail.responses`: put back the statuses those schemas do not name, in status
 * order, with each answer's schema as it is answered (`asAnswered`) and a 304 without a body.
 */
export function withDetailResponses(doc: { paths?: Record<string, Record<string, Operation>> }, routes: readonly RouteLike[]): void {
  for (const route of routes) {
    const operation = doc.paths?.[route.path.replace(/:(\w+)/g, "{$1}")]?.[route.method.toLowerCase()];
    if (!operation) continue;
    const merged: Record<string, unknown> = { ...route.hooks?.detail?.responses, ...operation.responses };
    // A 304 carries no body (RFC 9110 15.4.5), whatever schema lets its handler return "".
    if (isRecord(merged["304"])) merged["304"] = { description: "Not modified: the `If-None-Match` matched; no body." };
    operation.responses = asAnswered(Object.fromEntries(Object.entries(merged).sort(([a], [b]) => Number(a) - Number(b)))) as Operation["responses"];
  }
}

/** The OpenAPI plugin with the error schemas in `components.schemas` and every route's `detail.responses` kept. */
export function openapiWithErrors(config: OpenApiConfig & { specPath: string }) {
  const { documentation = {} } = config;
  const components = { ...documentation.components, schemas: { ...ErrorSchemas, ...documentation.components?.schemas } };
  const plugin = openapi({ ...config, documentation: { ...documentation, components } as typeof documentation });
  // The plugin answers the same (cached) object until routes are added: complete each object once.
  const completed = new WeakSet<object>();
  // A local hook: it runs for the plugin's own routes (the description and its page), not for the API's.
  return new Elysia({ name: "frameline.openapi" })
    .onAfterHandle(({ path, response }) => {
      if (path !== config.specPath || typeof response !== "object" || response === null || completed.has(response)) return;
      // Every route of the app: the plugin's own view, which Elysia points at the root app's routes on `use`.
      withDetailResponses(response as never, (plugin as unknown as { getGlobalRoutes(): RouteLike[] }).getGlobalRoutes());
      completed.add(response);
    })
    .use(plugin);
}
