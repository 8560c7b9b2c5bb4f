/**
 * Every error the service answers: one table of codes (docs/api.md "Errors" and the
 * project's own) with their status, body shape and default message, one class,
 * and the factories built from the table. http/errors-plugin.ts renders them.
 *
 * To add a code: add a row to `ErrorTable`, `CODE: row(status, shape, message,
 * headers?)`, throw it with `fail("CODE", message?, extra?)` or a named factory
 * in `Errors`, and list it in README.md "Errors" (a unit test checks that).
 */

/** The body shapes of docs/api.md "Errors". */
export const Shapes = {
  /**
   * `{error: {code, message, ...extra}}` on the application and operator APIs; the
   * renderer writes it `{error: CODE, message, ...extra}` on the events host (`/v1/...`).
   */
  coded: "coded",
  /** 422 `{message, errors: {<field>: [<text>]}}`. */
  validation: "validation",
  /** 404 `{message: "No query results for model [<model>] <id>"}`. */
  model: "model",
  /** `{error: "<code in lower case>"}`, a flat string. */
  flat: "flat",
} as const;
export type Shape = (typeof Shapes)[keyof typeof Shapes];

interface ErrorRow {
  status: number;
  shape: Shape;
  /** Said when the thrower has nothing more precise to say. */
  message: string;
  headers?: Readonly<Record<string, string>>;
}

const row = (status: number, shape: Shape, message: string, headers?: Readonly<Record<string, string>>): ErrorRow => ({ status, shape, message, headers });
const RETRY_1 = { "Retry-After": "1" } as const;
const RETRY_5 = { "Retry-After": "5" } as const;

/** The codes, by status. docs/api.md's statuses are binding; the README lists the same rows. */
export const ErrorTable = {
  INVALID_PAYLOAD: row(400, "coded", "The request body is invalid."),
  INVALID_EVENT_NAME: row(400, "coded", "The event name has no usable characters after normalisation (a-z, 0-9, _ and -)."),
  OFFSET_REQUIRED: row(400, "coded", "Send the Upload-Offset header: the number of bytes already sent (0 for the first chunk)."),
  EMPTY_CHUNK: row(400, "coded", "The chunk has no bytes."),
  SIZE_EXCEEDED: row(400, "coded", "The chunk goes past the declared size."),
  AUTH_REQUIRED: row(401, "coded", "No API token was sent. Use Authorization: Bearer <token> or X-API-Key."),
  INVALID_TOKEN: row(401, "coded", "The API token is wrong, expired or revoked."),
  INVALID_CREDENTIALS: row(401, "coded", "The email or the password is wrong."),
  TWO_FACTOR_REQUIRED: row(
    401,
    "coded",
    "This account signs in with a second factor: send the code from the authenticator app, or a recovery code, as `code`.",
  ),
  CSRF_REJECTED: row(403, "coded", "This change needs the session's X-CSRF-Token header. Reload the dashboard and try again."),
  INSUFFICIENT_ROLE: row(403, "coded", "Your role in this workspace does not allow this."),
  INSUFFICIENT_SCOPE: row(403, "coded", "The token lacks the scope this call needs."),
  FALLBACK_DISABLED: row(403, "coded", "The browser fallback is turned off for this integration in this workspace."),
  ORIGIN_NOT_ALLOWED: row(403, "coded", "This video can't be played on this site."),
  NOT_FOUND: row(404, "coded", "Not found."),
  VIDEO_NOT_FOUND: row(404, "coded", "Video not found."),
  UPLOAD_NOT_FOUND: row(404, "coded", "Upload session not found. It may have expired (24 hours after init): start again with init."),
  EXPORT_NOT_FOUND: row(404, "coded", "Export not found."),
  INTEGRATION_NOT_FOUND: row(404, "coded", "No such integration is configured for this workspace."),
  WORKSPACE_NOT_FOUND: row(404, "coded", "No workspace has this code."),
  MODEL_NOT_FOUND: row(404, "model", "No query results for model."),
  UNKNOWN_WORKSPACE: row(404, "flat", "The token's workspace no longer exists."),
  OFFSET_MISMATCH: row(409, "coded", "Upload-Offset is ahead of the server."),
  INCOMPLETE: row(409, "coded", "Not every byte has arrived."),
  IDEMPOTENCY_IN_PROGRESS: row(409, "coded", "A request with this Idempotency-Key is still being processed. Retry shortly.", RETRY_1),
  CONFLICT: row(409, "coded", "Another request wrote the same data first. Nothing was changed; read the current state and retry."),
  PAYLOAD_TOO_LARGE: row(413, "coded", "The request body is too large: use a resumable upload."),
  TUS_VERSION_UNSUPPORTED: row(412, "coded", "This server speaks another tus protocol version."),
  URI_TOO_LONG: row(414, "coded", "The request URL is longer than 16384 characters."),
  VALIDATION_FAILED: row(422, "validation", "The given data was invalid."),
  UNSUPPORTED_MEDIA_TYPE: row(422, "coded", "The file is not a video (accepted: mp4, mov, m4v, avi, webm, ogv, 3gp, mkv)."),
  FOLDER_NOT_FOUND: row(422, "coded", "The folder does not exist in this workspace."),
  TOO_MANY_EVENT_NAMES: row(422, "coded", "This workspace already uses the most distinct event names allowed."),
  EVENT_NOT_DECLARED: row(422, "coded", "The event is not declared as a custom metric in this workspace."),
  RATE_LIMITED: row(429, "coded", "Too many requests."),
  WRITE_FAILED: row(500, "coded", "The event could not be written. Retry."),
  DEPLOY_FAILED: row(500, "coded", "The player could not be compiled or pushed to the CDN. Nothing changed; the previous version keeps serving. Retry."),
  INTERNAL_ERROR: row(500, "coded", "Something went wrong on our side."),
  AUTH_UNAVAILABLE: row(503, "coded", "Token verification is temporarily unavailable. Retry shortly.", RETRY_5),
  UNAVAILABLE: row(503, "coded", "The integration lookup is unavailable. Retry shortly.", RETRY_5),
  DATABASE_BUSY: row(503, "coded", "Another request changed the same data at the same moment. Nothing was changed; retry.", RETRY_1),
  DATABASE_UNAVAILABLE: row(503, "coded", "The database is unreachable for a moment. Nothing was changed; retry.", RETRY_5),
  INGEST_BACKLOG_FULL: row(
    503,
    "coded",
    "The event store is away and the events kept meanwhile fill the backlog. Nothing was written; retry later (with the same event_id).",
    { "Retry-After": "30" },
  ),
  INSUFFICIENT_STORAGE: row(507, "coded", "There is not enough storage to take a file of that size now. Nothing was saved; try again later."),
  // docs/api.md "Automation-platform REST hooks": an unknown trigger key is a 200-range status with a flat body.
  UNKNOWN_TRIGGER: row(200, "flat", "No trigger has this key."),
} as const;

export type ErrorCode = keyof typeof ErrorTable;

export type ErrorBody =
  | { error: { code: string; message: string; [extra: string]: unknown }; [outer: string]: unknown } // coded
  | { error: string; message?: string; [extra: string]: unknown } // coded on the events host, flat
  | { message: string; errors: Record<string, string[]> } // 422 validation
  | { message: string } // model-style 404
  | Record<string, unknown>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof (body as { message?: unknown }).message === "string" ? (body as { message: string }).message : `HTTP ${status}`);
  }

  /** The code of a coded or flat body, else the status (`HTTP_422`). */
  get code(): string {
    const error = (this.body as { error?: unknown }).error;
    if (typeof error === "string") return error;
    if (typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string") return (error as { code: string }).code;
    return `HTTP_${this.status}`;
  }
}

/**
 * The error of the table's `code`. `extra` goes beside `code` and `message`
 * (coded) or is the field map (`{errors}`, validation).
 */
export function fail(code: ErrorCode, message?: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>): ApiError {
  const { status, message: fallback, headers: fixed } = ErrorTable[code];
  return make(status, code, message ?? fallback, extra, { ...fixed, ...headers });
}

function make(status: number, code: ErrorCode, message: string, extra: Record<string, unknown>, headers: Record<string, string>): ApiError {
  switch (ErrorTable[code].shape) {
    case Shapes.coded:
      return new ApiError(status, { error: { code, message, ...extra } }, headers);
    case Shapes.validation:
      return new ApiError(status, { message, errors: (extra.errors ?? {}) as Record<string, string[]> }, headers);
    case Shapes.model:
      return new ApiError(status, { message }, headers);
    case Shapes.flat:
      return new ApiError(status, { error: code.toLowerCase() }, headers);
  }
}

/** Where a request arrived: the events host (`/v1/...`) writes coded errors flat. */
export type Host = "api" | "events";

/** The body as answered on `host` (docs/api.md "Errors": the events host uses `{error: CODE, message}`). */
export function bodyFor(error: ApiError, host: Host): unknown {
  const { error: inner, ...outer } = error.body as { error?: unknown };
  if (host !== "events" || typeof inner !== "object" || inner === null) return error.body;
  const { code, message, ...extra } = inner as { code: string; message: string };
  return { error: code, message, ...extra, ...outer };
}

/** 422 in docs/api.md's validation shape. */
export function validation(errors: Record<string, string[]>, message?: string): ApiError {
  const first = Object.values(errors)[0]?.[0];
  const count = Object.values(errors).reduce((n, list) => n + list.length, 0);
  const text = message ?? (first ? (count > 1 ? `${first} (and ${count - 1} more error${count > 2 ? "s" : ""})` : first) : undefined);
  return fail("VALIDATION_FAILED", text, { errors });
}

/** What a 22xxx data error says: the client sent a value its field cannot hold. */
export const REFUSED_VALUE = "A value is out of range or malformed for its field.";

/** The answer to each kind of failed Postgres statement (storage/postgres.ts `storageFailure`). */
export const StorageOutcomes = {
  conflict: () => fail("CONFLICT"),
  busy: () => fail("DATABASE_BUSY"),
  unavailable: () => fail("DATABASE_UNAVAILABLE"),
  /** A backstop: the edges check every value, so this is our bug or a check missing. */
  invalidData: () => validation({ body: [REFUSED_VALUE] }),
} as const;

/** The named factories: what callers throw. */
export const Errors = {
  authRequired: () => fail("AUTH_REQUIRED"),
  invalidToken: (message?: string) => fail("INVALID_TOKEN", message),
  insufficientScope: (required: string) => fail("INSUFFICIENT_SCOPE", `This call needs the ${required} scope.`, { required }),
  /** docs/api.md "Authentication" 8: the events host refuses the legacy key outright. */
  legacyKeyRefused: () =>
    fail("INSUFFICIENT_SCOPE", "The legacy workspace key is not accepted on the events host; use a scoped token with events:write.", {
      required: "events:write",
    }),
  authUnavailable: () => fail("AUTH_UNAVAILABLE"),
  rateLimited: (retryAfterSeconds: number, headers: Record<string, string>) =>
    fail("RATE_LIMITED", `Too many requests. Retry in ${retryAfterSeconds} s.`, {}, { ...headers, "Retry-After": String(retryAfterSeconds) }),

  /** 404 for GET video, settings, embed and config (docs/api.md "Errors"). */
  videoNotFoundRead: () => fail("NOT_FOUND", "Video not found"),
  /** 404 for PATCH, DELETE, duplicate, playlist and settings calls. */
  modelNotFound: (model: string, id: string | number) => fail("MODEL_NOT_FOUND", `No query results for model [${model}] ${id}`),
  videoNotFound: (message?: string, extra?: Record<string, unknown>) => fail("VIDEO_NOT_FOUND", message, extra),
  notFound: (message?: string) => fail("NOT_FOUND", message),
  routeNotFound: () => fail("NOT_FOUND", "No such route."),
  folderNotFound: () => fail("FOLDER_NOT_FOUND"),
  originNotAllowed: () => fail("ORIGIN_NOT_ALLOWED"),
  signingKeyNotFound: () => fail("NOT_FOUND", "Signing key not found."),
  invalidPayload: (message: string) => fail("INVALID_PAYLOAD", message),

  idempotencyKeyReused: () =>
    validation({ "Idempotency-Key": ["This key was already used with a different request body."] }, "The Idempotency-Key was reused with a different request."),
  idempotencyInProgress: () => fail("IDEMPOTENCY_IN_PROGRESS"),
  /** A stored first answer replayed as it was sent (docs/api.md "Endpoints", Idempotency-Key). */
  replayed: (status: number, body: Record<string, unknown>) => new ApiError(status, body, { "Idempotency-Replayed": "true" }),

  /** docs/api.md "Errors", upload rows (and the 412 a tus client of another protocol version gets). */
  uploadNotFound: () => fail("UPLOAD_NOT_FOUND"),
  offsetRequired: (message?: string) => fail("OFFSET_REQUIRED", message),
  emptyChunk: () => fail("EMPTY_CHUNK"),
  sizeExceeded: (offset: number, size: number) => fail("SIZE_EXCEEDED", `The chunk goes past the declared size of ${size} bytes.`, { offset, size }),
  offsetMismatch: (offset: number, message = `Upload-Offset is ahead of the server: continue from offset ${offset}.`) =>
    fail("OFFSET_MISMATCH", message, { offset }),
  incomplete: (offset: number, size: number) =>
    fail("INCOMPLETE", `Only ${offset} of ${size} bytes have arrived: send the rest from offset ${offset}.`, { offset, size }),
  unsupportedMediaType: () => fail("UNSUPPORTED_MEDIA_TYPE"),
  insufficientStorage: () => fail("INSUFFICIENT_STORAGE"),
  payloadTooLarge: (max: number) => fail("PAYLOAD_TOO_LARGE", `The request body is larger than ${Math.floor(max / (1024 * 1024))} MB: use a resumable upload.`),
  chunkContentType: () => fail("INVALID_PAYLOAD", "Chunks are sent with Content-Type: application/offset+octet-stream."),
  tusVersionUnsupported: (supported: string) => fail("TUS_VERSION_UNSUPPORTED", `This server speaks tus ${supported}.`, {}, { "Tus-Version": supported }),

  workspaceNotFound: () => fail("WORKSPACE_NOT_FOUND"),
  eventNotDeclared: (name: string) => fail("EVENT_NOT_DECLARED", `The event "${name}" is not declared as a custom metric in this workspace.`, { event: name }),
  tooManyEventNames: (inUse: number, limit: number) =>
    fail("TOO_MANY_EVENT_NAMES", `This workspace already uses ${inUse} distinct event names, the most allowed (${limit}).`, { in_use: inUse, limit }),
  eventNotWritten: (message = "The event could not be written. Retry (with the same event_id to avoid a double count).") => fail("WRITE_FAILED", message),
  /** docs/api.md "Errors": on `POST /conversions` a write that did not happen is 503, not the events host's 500. */
  conversionNotWritten: () =>
    make(503, "WRITE_FAILED", "The conversion could not be written. Retry with the same Idempotency-Key.", {}, { "Retry-After": "5" }),
  browserConversionNotWritten: () => fail("WRITE_FAILED", "The conversion could not be written. Retry with the same order_id."),
  /** docs/api.md "Errors": the conversion's 404 echoes `video_code`, inside the error and beside it. */
  conversionVideoNotFound: (videoCode: string) =>
    new ApiError(404, { error: { code: "VIDEO_NOT_FOUND", message: "Video not found in this workspace.", video_code: videoCode }, video_code: videoCode }),
  integrationNotFound: (name: string) => fail("INTEGRATION_NOT_FOUND", `No integration "${name}" is configured for this workspace.`),
  fallbackDisabled: (name: string) => fail("FALLBACK_DISABLED", `The browser fallback is turned off for "${name}" in this workspace.`),
  integrationLookupUnavailable: () => fail("UNAVAILABLE"),

  exportNotFound: (message?: string) => fail("EXPORT_NOT_FOUND", message),
  exportVideosNotFound: () => fail("VIDEO_NOT_FOUND", "One or more video IDs not found."),
  deployFailed: () => fail("DEPLOY_FAILED"),
  unknownTrigger: () => fail("UNKNOWN_TRIGGER"),
  unknownWorkspace: () => fail("UNKNOWN_WORKSPACE"),
  internal: (requestId: string) => fail("INTERNAL_ERROR", `Something went wrong on our side. Request id: ${requestId}.`, { request_id: requestId }),
} as const;
