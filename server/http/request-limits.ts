/**
 * Limits every request meets before routing (README "Limits"). A URL longer
 * than `MAX_URL_LENGTH` is refused with 414. JSON bodies are bounded before
 * anything parses them: at
 * most `MAX_JSON_BODY_BYTES`, arrived within the body timeout (a body shorter
 * than its Content-Length would otherwise hold the request until the
 * connection's idle timeout, and then get no answer at all), and nested at most
 * `MAX_JSON_DEPTH` deep (no later step, a validator or an error's text, can
 * then recurse without bound).
 *
 * `boundJsonBody` gives a request whose body is JSON (or text, which the
 * events host's browser paths parse as JSON) its own `json()` and `text()`
 * doing that; Elysia's parsers call them. Other bodies (uploads) are streamed
 * by their routes and left alone.
 */
import { Elysia } from "elysia";
import { Errors, fail, validation } from "../errors.ts";
import { pathOf } from "./params.ts";
import { MAX_JSON_DEPTH } from "./schemas.ts";

export const MAX_JSON_BODY_BYTES = 1_048_576;
/** Characters of a request URL (scheme and host included); Bun's own header limit is set above it (package.json). */
export const MAX_URL_LENGTH = 16_384;

const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;
const QUOTE = 34;
const BACKSLASH = 92;

/** How deep the arrays and objects of a JSON text nest, without parsing it (strings skipped). */
export function jsonDepth(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > deepest) deepest = depth;
      if (deepest > stopAbove) return deepest;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return deepest;
}

function isJsonLike(contentType: string | null): boolean {
  if (contentType === null) return false;
  const type = contentType.split(";", 1)[0]!.trim().toLowerCase();
  return type === "application/json" || type.endsWith("+json") || type === "text/plain";
}

const isEventsHost = (request: Request) => pathOf(request.url).startsWith("/v1/");

function tooDeep(request: Request) {
  const text = `The body nests deeper than ${MAX_JSON_DEPTH} levels.`;
  return isEventsHost(request) ? Errors.invalidPayload(text) : validation({ body: [text] });
}

const tooLarge = () => fail("PAYLOAD_TOO_LARGE", `The JSON body is larger than ${MAX_JSON_BODY_BYTES} bytes.`);

/** The body's text, refused when too large or when it stops arriving for `timeoutMs`. */
async function readText(request: Request, text: () => Promise<string>, timeoutMs: number): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null && (!/^\d+$/.test(declared.trim()) || Number(declared) > MAX_JSON_BODY_BYTES)) throw tooLarge();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          Errors.invalidPayload(
            `The body did not arrive within ${timeoutMs / 1000} s${declared === null ? "" : ` (Content-Length declared ${declared} bytes)`}. Send the whole body, and a Content-Length that matches it.`,
          ),
        ),
      timeoutMs,
    );
  });
  try {
    const reading = declared !== null ? text() : readChunked(request);
    reading.catch(() => {}); // an abandoned read fails when the connection closes
    return await Promise.race([reading, stalled]);
  } finally {
    clearTimeout(timer);
  }
}

/** A body without Content-Length (chunked), read up to the limit. */
async function readChunked(request: Request): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_JSON_BODY_BYTES) {
      reader.cancel().catch(() => {});
      throw tooLarge();
    }
    parts.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(parts));
}

/** Gives a JSON (or text) request bounded `json()` and `text()`; any other request is left as it is. */
export function boundJsonBody(request: Request, timeoutMs: number): void {
  if (request.body === null || !isJsonLike(request.headers.get("content-type"))) return;
  const original = request.text.bind(request);
  let read: Promise<string> | undefined;
  const text = () => {
    read ??= readText(request, original, timeoutMs).then((body) => {
      if (jsonDepth(body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw tooDeep(request);
      return body;
    });
    return read;
  };
  const json = () =>
    text().then((body) => {
      try {
        return JSON.parse(body) as unknown;
      } catch {
        throw Errors.invalidPayload("The body is not valid JSON.");
      }
    });
  Object.defineProperties(request, { text: { value: text }, json: { value: json } });
}

/** The plugin: every request passes here before routing (a synchronous hook: nothing awaits here). */
export function requestLimitsPlugin(bodyTimeoutMs: number) {
  return new Elysia({ name: "frameline.request-limits" }).onRequest(({ request }) => {
    if (request.url.length > MAX_URL_LENGTH) throw fail("URI_TOO_LONG");
    boundJsonBody(request, bodyTimeoutMs);
  });
}
