/**
 * Where media lives in the media BlobStore. Uploaded sources stay private under
 * `uploads/`; only `videos/` is served publicly. Each encode writes to its own
 * folder (the job id), so a replacement never changes a file a player is reading.
 */
import type { Config } from "../config.ts";
import type { Deps } from "../deps.ts";
import type { Orientation } from "../../contract/player-config.ts";

export const PUBLIC_PREFIX = "videos/";

export const sourceKey = (uploadId: string): string => `uploads/${uploadId}/source`;
export const orientationPrefix = (videoCode: string, o: Orientation): string => `${PUBLIC_PREFIX}${videoCode}/${o}/`;
export const outputPrefix = (videoCode: string, o: Orientation, jobId: number): string => `${orientationPrefix(videoCode, o)}${jobId}/`;

/** The store's public (CDN) URL when configured, else this process's `/media/` route. */
export function mediaUrl(deps: Pick<Deps, "blobs" | "config">, key: string): string {
  return deps.blobs.media.publicUrl(key) ?? `${deps.config.publicUrl}/media/${key.split("/").map(encodeURIComponent).join("/")}`;
}

/** The public URL of a file on CDN target A: the CDN's when CDN_URL is set, else this process's `/cdn/`. */
export function cdnFileUrl(config: Pick<Config, "cdnUrl" | "publicUrl">, key: string): string {
  return `${config.cdnUrl ?? `${config.publicUrl}/cdn`}/${key}`;
}
