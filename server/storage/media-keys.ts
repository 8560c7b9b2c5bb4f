/**
 * Where media lives in the blob stores, and the public URLs of stored files.
 * The media store holds what players read, under `videos/`, the only prefix served
 * publicly. Uploaded sources and export files live in the private store, which no
 * public URL serves (fs `<DATA_DIR>/private`, S3 `<bucket>/private/`), so a bucket
 * policy or CDN that opens `media/` can never expose them. Each encode writes to its
 * own folder (the job id), so a replacement never changes a file a player is reading.
 * Rows store keys, never URLs: a URL is built when answering, from PUBLIC_URL,
 * S3_PUBLIC_URL or CDN_URL as they are now.
 */
import type { Config } from "../config.ts";
import type { BlobObject, BlobStore, ByteRange } from "./blob/index.ts";
import type { Orientation } from "../../contract/player-config.ts";

export const PUBLIC_PREFIX = "videos/";

/** Stored keys of private files start with this; it is also the private store's place in the bucket. */
export const PRIVATE_PREFIX = "private/";

export const sourceKey = (uploadId: string): string => `${PRIVATE_PREFIX}sources/${uploadId}/source`;
export const exportKey = (workspaceId: number, publicId: string, format: string): string => `${PRIVATE_PREFIX}exports/${workspaceId}/${publicId}.${format}`;

/**
 * The store and key of a stored source or export key. `private/...` is in the
 * private store; a key written before PostgreSQL migration 0022 (`uploads/...`,
 * `exports/...`) is in the media store until the private mover takes it over.
 */
export function privateBlob(blobs: PrivateStores, stored: string): { store: BlobStore; key: string } {
  return stored.startsWith(PRIVATE_PREFIX) ? { store: blobs.private, key: stored.slice(PRIVATE_PREFIX.length) } : { store: blobs.media, key: stored };
}

type PrivateStores = { media: BlobStore; private: BlobStore };

/** Where the private mover puts a key from before 0022: `uploads/<id>/source` → `private/sources/<id>/source`, `exports/…` → `private/exports/…`. */
export function movedKey(stored: string): string {
  if (stored.startsWith(PRIVATE_PREFIX)) return stored;
  return stored.startsWith("uploads/") ? `${PRIVATE_PREFIX}sources/${stored.slice("uploads/".length)}` : `${PRIVATE_PREFIX}${stored}`;
}

/** Reads a stored source or export; an old key the mover has just taken over is found where it went. */
export async function getPrivate(blobs: PrivateStores, stored: string, range?: ByteRange): Promise<BlobObject | undefined> {
  const at = privateBlob(blobs, stored);
  const object = await at.store.get(at.key, range);
  if (object || stored.startsWith(PRIVATE_PREFIX)) return object;
  const moved = privateBlob(blobs, movedKey(stored));
  return moved.store.get(moved.key, range);
}

/** Deletes a stored source or export, at its old place and where the mover may have copied it. */
export async function deletePrivate(blobs: PrivateStores, stored: string): Promise<void> {
  for (const key of new Set([stored, movedKey(stored)])) {
    const at = privateBlob(blobs, key);
    await at.store.delete(at.key);
  }
}
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
