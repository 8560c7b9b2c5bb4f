/**
 * Where media lives in the media BlobStore, and the public URLs of stored files.
 * Uploaded sources stay private under `uploads/`; only `videos/` is served
 * publicly. Each encode writes to its own folder (the job id), so a replacement
 * never changes a file a player is reading. Rows store keys, never URLs: a URL is
 * built when answering, from PUBLIC_URL, S3_PUBLIC_URL or CDN_URL as they are now.
 */
import type { Config } from "../config.ts";
import type { Orientation } from "../../contract/player-config.ts";

export const PUBLIC_PREFIX = "videos/";

export const sourceKey = (uploadId: string): string => `uploads/${uploadId}/source`;
export const orientationPrefix = (videoCode: string, o: Orientation): string => `${PUBLIC_PREFIX}${videoCode}/${o}/`;
export const outputPrefix = (videoCode: string, o: Orientation, jobId: number): string => `${orientationPrefix(videoCode, o)}${jobId}/`;

const encodePath = (key: string) => key.split("/").map(encodeURIComponent).join("/");

/** Where media keys resolve: the bucket's public (CDN) URL when S3_PUBLIC_URL is set, else this service's `/media/` route. */
export function mediaBase(config: Pick<Config, "publicUrl" | "s3">): string {
  const bucket = config.s3?.publicBaseUrl;
  return bucket ? `${bucket.replace(/\/+$/, "")}/media/` : `${config.publicUrl}/media/`;
}

/** A media file's public URL. */
export function mediaUrl(config: Pick<Config, "publicUrl" | "s3">, key: string): string {
  return `${mediaBase(config)}${encodePath(key)}`;
}

/**
 * A stored media reference as a URL. Rows hold keys; a row written as a URL by a
 * version before keys (during a rolling upgrade) is answered as it is.
 */
export function mediaUrlOf(config: Pick<Config, "publicUrl" | "s3">, stored: string | null): string | null {
  if (stored === null) return null;
  return /^https?:\/\//.test(stored) ? stored : mediaUrl(config, stored);
}

/** The public URL of a file on CDN target A: the CDN's when CDN_URL is set, else this process's `/cdn/`. */
export function cdnFileUrl(config: Pick<Config, "cdnUrl" | "publicUrl">, key: string): string {
  return `${config.cdnUrl ?? `${config.publicUrl}/cdn`}/${key}`;
}

/**
 * The URL of an entry script (a video's or a split test's). A bundle holds no
 * deployment URL: it finds the events host and the media from where it is served
 * (`<root>/cdn/p/<code>.js`: `<root>` and `<root>/media/`, player/locate.ts). When
 * they are elsewhere (CDN_URL, S3_PUBLIC_URL), the script URL says so in its query
 * (`e`, `m`), built here from the settings of the moment.
 */
export function entryScriptUrl(config: Pick<Config, "cdnUrl" | "publicUrl" | "s3">, key: string): string {
  const params = new URLSearchParams();
  if (config.cdnUrl) params.set("e", config.publicUrl);
  const media = mediaBase(config);
  if (config.cdnUrl || media !== `${config.publicUrl}/media/`) params.set("m", media);
  const url = cdnFileUrl(config, key);
  return params.size ? `${url}?${params}` : url;
}
