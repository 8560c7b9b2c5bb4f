/**
 * One error class, one factory table, one renderer. SPEC.md "Errors" uses
 * several body shapes; each factory picks its shape so handlers only throw.
 */

export type ErrorBody =
  | { error: { code: string; message: string; [extra: string]: unknown } } // application API
  | { error: string; message?: string; [extra: string]: unknown } // events host, automation
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
}

const api = (status: number, code: string, message: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  new ApiError(status, { error: { code, message, ...extra } }, headers);

const events = (status: number, code: string, message: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  new ApiError(status, { error: code, message, ...extra }, headers);

export const Errors = {
  authRequired: () => api(401, "AUTH_REQUIRED", "No API token was sent. Use Authorization: Bearer <token> or X-API-Key."),
  invalidToken: () => api(401, "INVALID_TOKEN", "The API token is wrong, expired or revoked."),
  insufficientScope: (required: string) => api(403, "INSUFFICIENT_SCOPE", `This call needs the ${required} scope.`, { required }),
  authUnavailable: () => api(503, "AUTH_UNAVAILABLE", "Token verification is temporarily unavailable. Retry shortly.", {}, { "Retry-After": "5" }),
  rateLimited: (retryAfterSeconds: number, headers: Record<string, string>) =>
    api(429, "RATE_LIMITED", `Too many requests. Retry in ${retryAfterSeconds} s.`, {}, { ...headers, "Retry-After": String(retryAfterSeconds) }),

  /** 404 for GET video, settings, embed and config (SPEC.md "Errors"). */
  videoNotFoundRead: () => api(404, "NOT_FOUND", "Video not found"),
  /** 404 for PATCH, DELETE, duplicate, playlist and settings calls. */
  modelNotFound: (model: string, id: string | number) => new ApiError(404, { message: `No query results for model [${model}] ${id}` }),
  videoNotFound: () => api(404, "VIDEO_NOT_FOUND", "Video not found."),
  notFound: (message = "Not found.") => api(404, "NOT_FOUND", message),
  routeNotFound: () => api(404, "NOT_FOUND", "No such route."),

  folderNotFound: () => api(422, "FOLDER_NOT_FOUND", "The folder does not exist in this workspace."),
  invalidPayload: (message: string) => api(400, "INVALID_PAYLOAD", message),

  idempotencyKeyReused: () =>
    validation({ "Idempotency-Key": ["This key was already used with a different request body."] }, "The Idempotency-Key was reused with a different request."),
  idempotencyInProgress: () =>
    api(409, "IDEMPOTENCY_IN_PROGRESS", "A request with this Idempotency-Key is still being processed. Retry shortly.", {}, { "Retry-After": "1" }),

  /** SPEC.md "Errors", upload rows (and the 412 a tus client of another protocol version gets). */
  uploadNotFound: () => api(404, "UPLOAD_NOT_FOUND", "Upload session not found. It may have expired (24 hours after init): start again with init."),
  offsetRequired: (message = "Send the Upload-Offset header: the number of bytes already sent (0 for the first chunk).") =>
    api(400, "OFFSET_REQUIRED", message),
  emptyChunk: () => api(400, "EMPTY_CHUNK", "The chunk has no bytes."),
  sizeExceeded: (offset: number, size: number) => api(400, "SIZE_EXCEEDED", `The chunk goes past the declared size of ${size} bytes.`, { offset, size }),
  offsetMismatch: (offset: number, message = `Upload-Offset is ahead of the server: continue from offset ${offset}.`) =>
    api(409, "OFFSET_MISMATCH", message, { offset }),
  incomplete: (offset: number, size: number) =>
    api(409, "INCOMPLETE", `Only ${offset} of ${size} bytes have arrived: send the rest from offset ${offset}.`, { offset, size }),
  unsupportedMediaType: () => api(422, "UNSUPPORTED_MEDIA_TYPE", "The file is not a video (accepted: mp4, mov, m4v, avi, webm, ogv, 3gp, mkv)."),
  insufficientStorage: () =>
    api(507, "INSUFFICIENT_STORAGE", "There is not enough storage to take a file of that size now. Nothing was saved; try again later."),
  payloadTooLarge: (max: number) =>
    api(413, "PAYLOAD_TOO_LARGE", `The request body is larger than ${Math.floor(max / (1024 * 1024))} MB: use a resumable upload.`),
  chunkContentType: () => api(400, "INVALID_PAYLOAD", "Chunks are sent with Content-Type: application/offset+octet-stream."),
  tusVersionUnsupported: (supported: string) => api(412, "TUS_VERSION_UNSUPPORTED", `This server speaks tus ${supported}.`, {}, { "Tus-Version": supported }),

  eventsInvalidPayload: (message: string) => events(400, "INVALID_PAYLOAD", message),
  eventsForbiddenLegacy: () =>
    events(403, "INSUFFICIENT_SCOPE", "The legacy workspace key is not accepted on the events host; use a scoped token with events:write.", {
      required: "events:write",
    }),
} as const;

/** 422 in SPEC.md's validation shape. */
export function validation(errors: Record<string, string[]>, message?: string): ApiError {
  const first = Object.values(errors)[0]?.[0];
  const count = Object.values(errors).reduce((n, list) => n + list.length, 0);
  const text = message ?? (first ? (count > 1 ? `${first} (and ${count - 1} more error${count > 2 ? "s" : ""})` : first) : "The given data was invalid.");
  return new ApiError(422, { message: text, errors });
}
