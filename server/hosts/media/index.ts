/**
 * `/media/*`: encoded media (HLS playlists, segments, posters) served from the
 * media BlobStore when no CDN base URL is configured. Range requests (players
 * seek with them), exact content types and open CORS (the player runs on
 * customers' pages). Only `videos/` is served: sources and exports are not even in
 * this store (the private store, storage/media-keys.ts).
 * A protected video's files (README "Playback protection") go only to an allowed
 * origin with, when it requires signed URLs, a valid token; its playlists are
 * written for the token so each segment carries it.
 */
import type { Deps } from "../../deps.ts";
import { createModule } from "../../http/module.ts";
import { FILE_CORS_HEADERS as CORS, filePreflight } from "../../http/cors.ts";
import { etagMatches } from "../../http/etag.ts";
import { parseRange } from "../../http/range.ts";
import { BlobError, BlobErrorCode } from "../../storage/blob/index.ts";
import { PUBLIC_PREFIX } from "../../storage/media-keys.ts";
import { KEY_FILE } from "../../domains/encoding/hls-encryption.ts";
import { isProtected, refusal, withToken, type Viewer } from "../../domains/playback/guard.ts";
import { clientIp, type SocketInfo } from "../events/http.ts";
import { countryOf } from "../events/client.ts";

function notFound(): Response {
  return new Response("Not found", { status: 404, headers: { ...CORS, "Content-Type": "text/plain; charset=utf-8" } });
}

const REFUSALS = {
  origin: "This video can't be played on this site.",
  token: "A valid playback token for this video is required.",
  access: "This video's token does not allow playback from this network or country.",
} as const;

function forbidden(why: keyof typeof REFUSALS): Response {
  return new Response(REFUSALS[why], { status: 403, headers: { ...CORS, "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

const isPlaylist = (key: string) => key.endsWith(".m3u8");

/** `?token=` of a media URL (read without building a URL object: this runs on every segment). */
function tokenParam(url: string): string | null {
  const query = url.indexOf("?");
  return query < 0 ? null : new URLSearchParams(url.slice(query + 1)).get("token");
}

export function mediaModule(deps: Deps) {
  const serve = async (request: Request, server: SocketInfo | null, key: string, head: boolean): Promise<Response> => {
    const store = deps.blobs.media;
    let decoded: string;
    try {
      decoded = decodeURIComponent(key);
    } catch {
      return notFound();
    }
    if (!decoded.startsWith(PUBLIC_PREFIX)) return notFound();
    const code = decoded.slice(PUBLIC_PREFIX.length).split("/")[0]!;
    const protection = await deps.playback.protection(code);
    const guarded = protection !== null && isProtected(protection);
    const token = guarded && protection.require_signed_urls ? tokenParam(request.url) : null;
    if (guarded) {
      // The viewer as the events host sees one: the client IP, its country from the same lookup.
      const viewer: Viewer = { ip: () => clientIp(deps, request, server), country: countryOf };
      const why = await refusal(deps.playback, protection, code, request.headers, token, viewer);
      if (why) return forbidden(why);
    }
    if (decoded === `${PUBLIC_PREFIX}${code}/${KEY_FILE}`) return streamKey(code, guarded, head);
    try {
      const info = await store.head(decoded);
      if (!info) return notFound();
      const headers: Record<string, string> = {
        ...CORS,
        "Accept-Ranges": "bytes",
        "Content-Type": info.contentType ?? "application/octet-stream",
        // A protected file is answered per page and token: no shared cache keeps it.
        "Cache-Control": guarded ? "private, no-store" : (info.cacheControl ?? "public, max-age=60"),
      };
      if (token && isPlaylist(decoded)) return playlistFor(decoded, token, headers, head);
      if (info.etag) headers.ETag = info.etag;
      if (info.lastModified) headers["Last-Modified"] = info.lastModified.toUTCString();
      if (etagMatches(request.headers.get("if-none-match"), info.etag)) return new Response(null, { status: 304, headers });
      const range = parseRange(request.headers.get("range"), info.size);
      if (range === "unsatisfiable") {
        return new Response(null, { status: 416, headers: { ...headers, "Content-Range": `bytes */${info.size}` } });
      }
      if (head) return new Response(null, { status: 200, headers: { ...headers, "Content-Length": String(info.size) } });
      const object = await store.get(decoded, range);
      if (!object) return notFound();
      if (range && object.range) {
        const { start, end } = object.range;
        return new Response(object.body, {
          status: 206,
          headers: { ...headers, "Content-Range": `bytes ${start}-${end}/${object.size}`, "Content-Length": String(end - start + 1) },
        });
      }
      return new Response(object.body, { status: 200, headers: { ...headers, "Content-Length": String(object.size) } });
    } catch (error) {
      if (error instanceof BlobError && error.code === BlobErrorCode.InvalidKey) return notFound();
      if (error instanceof BlobError && error.code === BlobErrorCode.InvalidRange) {
        return new Response(null, { status: 416, headers: { ...CORS } });
      }
      throw error;
    }
  };

  /**
   * An encrypted video's AES-128 key (README "Playback protection"), from PostgreSQL:
   * never a blob, so no bucket or CDN can serve it; only after the checks above.
   */
  const streamKey = async (code: string, guarded: boolean, head: boolean): Promise<Response> => {
    const key = await deps.playback.streamKey(code);
    if (!key) return notFound();
    const headers = {
      ...CORS,
      "Content-Type": "application/octet-stream",
      "Content-Length": "16",
      // Never kept by a shared cache: each viewer's request is checked.
      "Cache-Control": guarded ? "private, no-store" : "private, max-age=60",
    };
    return new Response(head ? null : new Uint8Array(key), { status: 200, headers });
  };

  /** A playlist as written for a token: read whole (playlists are small), each URI carrying it. */
  const playlistFor = async (key: string, token: string, headers: Record<string, string>, head: boolean): Promise<Response> => {
    const object = await deps.blobs.media.get(key);
    if (!object) return notFound();
    const body = withToken(await new Response(object.body).text(), token);
    const rest: Record<string, string> = { ...headers, "Content-Length": String(Buffer.byteLength(body)) };
    delete rest["Accept-Ranges"];
    return new Response(head ? null : body, { status: 200, headers: rest });
  };

  return createModule("media", { tag: "Media", hidden: true })
    .get("/media/*", ({ params, request, server }) => serve(request, server as SocketInfo | null, params["*"], false), { detail: { hide: true } })
    .head("/media/*", ({ params, request, server }) => serve(request, server as SocketInfo | null, params["*"], true), { detail: { hide: true } })
    .options("/media/*", filePreflight, { detail: { hide: true } });
}
