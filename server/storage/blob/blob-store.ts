/**
 * The blob storage contract shared by the filesystem and S3 stores.
 *
 * Keys are slash-separated relative paths ("videos/abc/720p/seg_001.m4s"). Both
 * stores apply the same key rules (see `assertBlobKey`) so that a key valid on one
 * CDN target is valid on the other.
 */

export type BlobBody = Uint8Array | string | Blob | ReadableStream<Uint8Array>;

/** Inclusive byte range, as in an HTTP `Range: bytes=start-end` header. */
export interface ByteRange {
  start: number;
  /** Inclusive; omitted means "to the end". Clamped to the last byte. */
  end?: number;
}

export interface BlobInfo {
  key: string;
  /** Size of the whole object, even when a range was read. */
  size: number;
  /** Absent in `list` results: S3 listings do not carry it. */
  contentType?: string;
  cacheControl?: string;
  /** Opaque, quoted like an HTTP ETag. */
  etag?: string;
  lastModified?: Date;
}

export interface BlobObject extends BlobInfo {
  /** Must be read to the end or cancelled: it holds a file descriptor or a socket. */
  body: ReadableStream<Uint8Array>;
  /** The bytes actually returned when a range was asked for. */
  range?: { start: number; end: number };
}

export interface PutOptions {
  /** Defaults to the type implied by the key's extension (`contentTypeFor`). */
  contentType?: string;
  cacheControl?: string;
  /**
   * Exact length of a stream body. With it a stream goes out in one request and a
   * body of any other length is rejected; without it S3 falls back to a multipart
   * upload buffered one part (8 MiB) at a time.
   */
  size?: number;
}

export type ChunkedOptions = Omit<PutOptions, "size">;

export interface ChunkPart {
  partNumber: number;
  etag: string;
  size: number;
}

/**
 * How far a chunked upload has got. The store keeps no record of its own: the
 * caller keeps this (the upload session) and hands it back with the next call.
 */
export interface ChunkedState {
  /** Bytes stored so far. */
  offset: number;
  /**
   * S3: the multipart parts holding the first bytes; the bytes after them (fewer
   * than a part) wait in a staging object. fs: always empty.
   */
  parts: ChunkPart[];
}

export const NO_BYTES_YET: ChunkedState = { offset: 0, parts: [] };

export interface BlobStore {
  readonly kind: "fs" | "s3";
  /**
   * Atomic: readers see the old object or the new one, never a partial write.
   * The answer may lack `lastModified` (an S3 PUT reply does not carry it).
   */
  put(key: string, body: BlobBody, opts?: PutOptions): Promise<BlobInfo>;
  /** `undefined` when the key does not exist; a range past the end throws `InvalidRange`. */
  get(key: string, range?: ByteRange): Promise<BlobObject | undefined>;
  head(key: string): Promise<BlobInfo | undefined>;
  /** A missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Deletes every key starting with `prefix` (a string prefix, as in S3); returns the count. */
  deletePrefix(prefix: string): Promise<number>;
  /** Keys starting with `prefix`, in byte order of the key (as real S3 lists; s3rver does not sort). */
  list(prefix: string): AsyncIterable<BlobInfo>;
  /** Public base URL + key when one is configured, else `undefined`. */
  publicUrl(key: string): string | undefined;
  /** Bytes left for new blobs: free space on the volume for fs, infinity for S3. */
  freeBytes(): Promise<number>;

  /**
   * Chunked writes back resumable uploads, in chunks of any size. The fs store
   * appends to a partial file beside the key. The S3 store keeps a multipart upload: bytes
   * that do not yet fill a part (S3 wants >= 5 MiB for all but the last) wait in
   * a staging object `<key>.incomplete` and are joined with the next chunk, as
   * @tus/s3-store keeps its "incomplete part". Nothing is visible under `key`
   * until `completeChunked`, which replaces an existing object atomically. One
   * writer per upload at a time (the caller's lease); the handle must be kept.
   */
  beginChunked(key: string, opts?: ChunkedOptions): Promise<string>;
  /**
   * Appends every byte of `body` after `state.offset` and resolves with the new
   * state. If the body errors, the call rejects and `state` still describes the
   * upload: whatever was written past it is ignored and overwritten by the next
   * append. Holds at most one part (8 MiB) of the body in memory.
   */
  appendChunked(key: string, handle: string, state: ChunkedState, body: ReadableStream<Uint8Array>): Promise<ChunkedState>;
  /** Makes the bytes of `state` the object under `key`; the last S3 part may be short. */
  completeChunked(key: string, handle: string, state: ChunkedState): Promise<BlobInfo>;
  /** Idempotent: aborting an unknown or finished upload is not an error. */
  abortChunked(key: string, handle: string): Promise<void>;
}

export const BlobErrorCode = {
  InvalidKey: "InvalidKey",
  InvalidRange: "InvalidRange",
  ShortBody: "ShortBody",
  LongBody: "LongBody",
  NoSuchUpload: "NoSuchUpload",
  /** The stored bytes do not match the state handed in (they were lost, or the state is stale). */
  BadParts: "BadParts",
} as const;
export type BlobErrorCode = (typeof BlobErrorCode)[keyof typeof BlobErrorCode];

/** The errors callers may want to tell apart; anything else is an I/O failure. */
export class BlobError extends Error {
  constructor(
    readonly code: BlobErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "BlobError";
  }
}

/** S3 multipart parts other than the last must be at least this big. */
export const MIN_PART_SIZE = 5 * 1024 * 1024;
/** docs/architecture.md "Data paths": the S3 store sends multipart parts of 8 MiB (the recommended upload chunk size). */
export const PART_SIZE = 8 * 1024 * 1024;
/** S3's limit on key length, in bytes. */
const MAX_KEY_BYTES = 1024;

/**
 * Suffixes the stores use for their own files next to a blob (fs: partial uploads
 * and sidecars; S3: staged bytes). Refused on both so that keys stay portable.
 */
export const RESERVED_SUFFIXES = [".partial", ".meta.json", ".incomplete"] as const;

/**
 * Throws `InvalidKey` unless `key` is a clean relative path: no absolute path, no
 * empty, `.` or `..` segment (the fs store must never leave its root), no segment
 * starting with "." (the fs store's temporary files are dot-files), no backslash or NUL.
 */
export function assertBlobKey(key: string): void {
  const problem = keyProblem(key);
  if (problem) throw new BlobError(BlobErrorCode.InvalidKey, `invalid blob key ${JSON.stringify(key)}: ${problem}`);
}

function keyProblem(key: string): string | undefined {
  if (typeof key !== "string" || key.length === 0) return "empty";
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) return "longer than 1024 bytes";
  if (/[\\\0]/.test(key)) return "backslash or NUL";
  if (key.startsWith("/")) return "absolute";
  if (key.split("/").some((s) => s === "" || s.startsWith("."))) return "empty or dot segment";
  if (RESERVED_SUFFIXES.some((s) => key.endsWith(s))) return "reserved suffix";
  return undefined;
}

/** Prefixes follow the key rules, except that they may be empty or end with "/". */
export function assertBlobPrefix(prefix: string): void {
  if (prefix === "") return;
  const body = prefix.endsWith("/") ? prefix.slice(0, -1) : prefix;
  const problem = keyProblem(body);
  if (problem && problem !== "reserved suffix") {
    throw new BlobError(BlobErrorCode.InvalidKey, `invalid blob prefix ${JSON.stringify(prefix)}: ${problem}`);
  }
}

/** Types by extension; players and browsers need the exact HLS/CMAF types. */
const CONTENT_TYPES: Record<string, string> = {
  m3u8: "application/vnd.apple.mpegurl",
  ts: "video/mp2t",
  m4s: "video/iso.segment",
  mp4: "video/mp4",
  m4a: "audio/mp4",
  webm: "video/webm",
  mov: "video/quicktime",
  vtt: "text/vtt; charset=utf-8",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  html: "text/html; charset=utf-8",
  json: "application/json",
  csv: "text/csv; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  zip: "application/zip",
  gz: "application/gzip",
};

export const DEFAULT_CONTENT_TYPE = "application/octet-stream";

export function contentTypeFor(key: string): string {
  const dot = key.lastIndexOf(".");
  const ext = dot > key.lastIndexOf("/") ? key.slice(dot + 1).toLowerCase() : "";
  return CONTENT_TYPES[ext] ?? DEFAULT_CONTENT_TYPE;
}

/** `base` + key with each segment URL-encoded; `undefined` without a base. */
export function joinPublicUrl(base: string | undefined, key: string): string | undefined {
  assertBlobKey(key);
  if (base === undefined) return undefined;
  const path = key.split("/").map(encodeURIComponent).join("/");
  return `${base.replace(/\/+$/, "")}/${path}`;
}

export const partsSize = (parts: ChunkPart[]): number => parts.reduce((n, p) => n + p.size, 0);

/** Bytes of `state` not yet in a part (S3's staged tail); throws when the state is impossible. */
export function stagedBytes(state: ChunkedState): number {
  const staged = state.offset - partsSize(state.parts);
  if (!Number.isSafeInteger(state.offset) || staged < 0) throw new BlobError(BlobErrorCode.BadParts, `offset ${state.offset} is before the end of the parts`);
  state.parts.forEach((p, i) => {
    if (p.partNumber !== i + 1) throw new BlobError(BlobErrorCode.BadParts, `part ${i + 1} expected at position ${i + 1}, got ${p.partNumber}`);
  });
  return staged;
}

/** Validates a requested range; returns the inclusive range clamped to `size`. */
export function resolveRange(range: ByteRange, size: number): { start: number; end: number } {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || start < 0 || (end !== undefined && (!Number.isSafeInteger(end) || end < start))) {
    throw new BlobError(BlobErrorCode.InvalidRange, `invalid range ${start}-${end ?? ""}`);
  }
  if (start >= size) throw new BlobError(BlobErrorCode.InvalidRange, `range ${start}- is past the end (${size} bytes)`);
  return { start, end: Math.min(end ?? size - 1, size - 1) };
}
