/**
 * `/cdn/*`: player bundles served from CDN target A (B when A cannot answer),
 * when this process is the CDN (no CDN_URL). The per-video entry `p/<code>.js`
 * keeps its stable URL, a short max-age with stale-while-revalidate and an ETag
 * (compiler/push.ts); its validator is kept per process (storage/entry-cache.ts),
 * so a revalidation answered 304 reads nothing from the bucket (it is confirmed
 * with one round trip to PostgreSQL when other processes may deploy). Content-hashed
 * files are immutable. Any page may embed the player, hence CORS `*`. Text files
 * are gzipped for clients that accept it (a CDN in front would do the same), and
 * the compressed bytes are kept per ETag so each version is compressed once.
 */
import type { Deps } from "../../deps.ts";
import { createModule } from "../../http/module.ts";
import { FILE_CORS_HEADERS as CORS, filePreflight } from "../../http/cors.ts";
import { etagMatches } from "../../http/etag.ts";
import { assertBlobKey, type BlobObject } from "../../storage/blob/index.ts";
import { ENTRY_CACHE_CONTROL, IMMUTABLE } from "../../../compiler/push.ts";
import type { EntryMeta } from "../../storage/entry-cache.ts";

const COMPRESSIBLE = /^(?:text\/|application\/(?:json|javascript))/;
const MAX_GZIP_BYTES = 4 * 1024 * 1024;
const GZIP_CACHE_ENTRIES = 256;

/** Compressed bodies by `<key> <etag>`; insertion order makes it a small LRU. */
type GzipCache = Map<string, Uint8Array>;

async function gzipOf(gzipped: GzipCache, key: string, object: BlobObject): Promise<Uint8Array> {
  const id = `${key} ${object.etag}`;
  const hit = gzipped.get(id);
  if (hit) {
    await object.body.cancel();
    gzipped.delete(id);
    gzipped.set(id, hit);
    return hit;
  }
  const bytes = Bun.gzipSync(new Uint8Array(await new Response(object.body).arrayBuffer()), { level: 9 });
  gzipped.set(id, bytes);
  if (gzipped.size > GZIP_CACHE_ENTRIES) gzipped.delete(gzipped.keys().next().value!);
  return bytes;
}

const acceptsGzip = (request: Request) => /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");

const HASHED = /\/(?:core|chunk)-[A-Za-z0-9]+\.js$/;

/** Hashed names (core-<hash>.js, chunk-<hash>.js) never change; anything else is revalidated. */
function cacheControlFor(key: string, stored: string | undefined): string {
  if (stored) return stored;
  return HASHED.test(key) ? IMMUTABLE : ENTRY_CACHE_CONTROL;
}

/** A file whose content changes under its name: an entry (`p/<code>.js`, `s/<code>.js`). */
const isEntry = (key: string) => !HASHED.test(key);

function notFound(): Response {
  return new Response("Not found", { status: 404, headers: { ...CORS, "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

/** The answer's headers for a stored file, and the validator of the variant this request gets (gzip or not). */
function headersOf(meta: EntryMeta, request: Request) {
  const headers: Record<string, string> = {
    ...CORS,
    "Content-Type": meta.contentType,
    "Cache-Control": meta.cacheControl,
    "X-Content-Type-Options": "nosniff",
  };
  const gzip = COMPRESSIBLE.test(meta.contentType) && meta.size <= MAX_GZIP_BYTES;
  if (gzip) headers.Vary = "Accept-Encoding";
  const useGzip = gzip && acceptsGzip(request) && meta.etag !== "";
  // The compressed variant is other bytes, so it gets its own validator.
  const etag = useGzip ? meta.etag.replace(/"$/, '-gz"') : meta.etag || undefined;
  if (etag) headers.ETag = etag;
  if (meta.lastModified) headers["Last-Modified"] = meta.lastModified.toUTCString();
  return { headers, etag, useGzip };
}

export function cdnModule(deps: Deps) {
  const gzipped: GzipCache = new Map();
  const open = async (key: string): Promise<BlobObject | undefined> => {
    try {
      return await deps.blobs.cdnA.get(key);
    } catch (error) {
      deps.log.warn("cdn target A failed, serving from B", { key, error: String(error) });
      return deps.blobs.cdnB.get(key);
    }
  };

  const serve = async (raw: string, request: Request, head: boolean): Promise<Response> => {
    let key: string;
    try {
      key = decodeURIComponent(raw);
      assertBlobKey(key);
    } catch {
      return notFound();
    }
    const ifNoneMatch = request.headers.get("if-none-match");
    const known = isEntry(key) && ifNoneMatch ? deps.entries.get(key) : undefined;
    if (known) {
      const { headers, etag } = headersOf(known, request);
      // Confirmed first: another process's deploy may have replaced it a moment ago (storage/entry-cache.ts).
      if (etagMatches(ifNoneMatch, etag) && (await deps.entries.confirm(key, known))) return new Response(null, { status: 304, headers });
    }
    // A read that a deploy overtakes may return the replaced entry: its validator is then not kept.
    const since = deps.entries.generation();
    const object = await open(key);
    if (!object) return notFound();
    const meta: EntryMeta = {
      etag: object.etag ?? "",
      contentType: object.contentType ?? "application/octet-stream",
      cacheControl: cacheControlFor(key, object.cacheControl),
      size: object.size,
      lastModified: object.lastModified,
    };
    if (isEntry(key) && object.etag) deps.entries.set(key, meta, since);
    const { headers, etag, useGzip } = headersOf(meta, request);
    if (useGzip && !head && !etagMatches(request.headers.get("if-none-match"), etag)) {
      const body = await gzipOf(gzipped, key, object);
      return new Response(body as Uint8Array<ArrayBuffer>, {
        status: 200,
        headers: { ...headers, "Content-Encoding": "gzip", "Content-Length": String(body.byteLength) },
      });
    }
    if (head || etagMatches(request.headers.get("if-none-match"), etag)) {
      await object.body.cancel();
      if (head) return new Response(null, { status: 200, headers: useGzip ? headers : { ...headers, "Content-Length": String(object.size) } });
      return new Response(null, { status: 304, headers });
    }
    return new Response(object.body, { status: 200, headers: { ...headers, "Content-Length": String(object.size) } });
  };

  return createModule("cdn")
    .get("/cdn/*", ({ params, request }) => serve(params["*"], request, false), { detail: { hide: true } })
    .head("/cdn/*", ({ params, request }) => serve(params["*"], request, true), { detail: { hide: true } })
    .options("/cdn/*", filePreflight, { detail: { hide: true } });
}
