/**
 * tus 1.0 core on the upload URL (tus.io "Resumable upload protocol 1.0.x"), so
 * tus-js-client, Uppy and every other tus client can resume a session that
 * `POST /videos/{video}/upload/init` created: HEAD gives the offset, PATCH sends
 * bytes. Creation stays our own call; termination is not offered (docs/api.md's
 * DELETE answers 200 with a body, tus wants 204); expiration is.
 */
import { Errors } from "../../errors.ts";
import { pathOf } from "../../http/params.ts";
import { MAX_FILE_SIZE } from "./model.ts";

export const TUS_VERSION = "1.0.0";

/** Where upload sessions live; `upload_url` points here. */
export const UPLOAD_URL_PREFIX = "/api/v1/uploads/";

export const isUploadUrl = (url: string): boolean => pathOf(url).startsWith(UPLOAD_URL_PREFIX);

/**
 * On every answer of an upload URL, errors included: the protocol version, and
 * CORS so a browser client on another origin can send its token and read the
 * offsets (it sends `Authorization` itself; no cookies are involved).
 */
export const UPLOAD_URL_HEADERS = {
  "Tus-Resumable": TUS_VERSION,
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers":
    "Upload-Offset, Upload-Length, Upload-Expires, Tus-Resumable, Tus-Version, Tus-Max-Size, Tus-Extension, Retry-After, RateLimit, RateLimit-Policy",
} as const;

/** The OPTIONS answer: what this server speaks, and the CORS preflight. */
export const OPTIONS_HEADERS = {
  "Tus-Version": TUS_VERSION,
  "Tus-Max-Size": String(MAX_FILE_SIZE),
  "Tus-Extension": "expiration",
  "Access-Control-Allow-Methods": "GET, HEAD, PATCH, POST, DELETE, OPTIONS",
  "Access-Control-Allow-Headers":
    "Authorization, X-API-Key, Content-Type, Upload-Offset, Upload-Length, Upload-Metadata, Tus-Resumable, X-HTTP-Method-Override, X-Requested-With, X-Request-ID, Idempotency-Key",
  "Access-Control-Max-Age": "86400",
} as const;

/** A tus request of another protocol version gets 412 (tus core); a request without the header is one of docs/api.md's own. */
export function assertTusVersion(request: Request): void {
  const version = request.headers.get("tus-resumable");
  if (version !== null && version.trim() !== TUS_VERSION) throw Errors.tusVersionUnsupported(TUS_VERSION);
}

/** The offset headers of HEAD and PATCH answers (tus core, and the expiration extension's date format). */
export const offsetHeaders = (s: { offset: number; size: number; expires_at: Date }): Record<string, string> => ({
  "Upload-Offset": String(s.offset),
  "Upload-Length": String(s.size),
  "Upload-Expires": s.expires_at.toUTCString(),
});
