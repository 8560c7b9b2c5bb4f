/**
 * The rules of SPEC.md "Uploads" and the "Upload session" state table; knows
 * nothing of HTTP beyond the request body stream it is handed.
 */
import busboy from "busboy";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { videoChanged, type Deps } from "../../deps.ts";
import { ApiError, Errors, validation } from "../../errors.ts";
import { BlobError, BlobErrorCode, type ChunkPart } from "../../storage/blob/index.ts";
import { enqueueEvent, LifecycleEvents } from "../../storage/outbox.ts";
import type { TxSql } from "../../storage/postgres.ts";
import { handToEncoder, wakeEncoder } from "../encoding/service.ts";
import { newUploadId, sourceKey } from "../encoding/keys.ts";
import { readHead, sniffContainer, SNIFF_BYTES } from "../encoding/sniff.ts";
import * as videosRepo from "../videos/repo.ts";
import type { VideoRow } from "../videos/repo.ts";
import { toStatus } from "../videos/service.ts";
import { CHUNK_SIZE, ORIENTATIONS, SESSION_LIFETIME_MS, type InitUploadBody, type OrientationName } from "./model.ts";
import * as repo from "./repo.ts";
import type { UploadSessionRow } from "./repo.ts";

const api = (status: number, code: string, message: string, extra: Record<string, unknown> = {}) =>
  new ApiError(status, { error: { code, message, ...extra } });

/** SPEC.md "Errors", upload rows. */
export const UploadErrors = {
  uploadNotFound: () => api(404, "UPLOAD_NOT_FOUND", "Upload session not found. It may have expired (24 hours after init): start again with init."),
  offsetRequired: () => api(400, "OFFSET_REQUIRED", "Send the Upload-Offset header: the number of bytes already sent (0 for the first chunk)."),
  emptyChunk: () => api(400, "EMPTY_CHUNK", "The chunk has no bytes."),
  sizeExceeded: (offset: number, size: number) => api(400, "SIZE_EXCEEDED", `The chunk goes past the declared size of ${size} bytes.`, { offset, size }),
  offsetMismatch: (offset: number, message?: string) =>
    api(409, "OFFSET_MISMATCH", message ?? `Upload-Offset is ahead of the server: continue from offset ${offset}.`, { offset }),
  incomplete: (offset: number, size: number) =>
    api(409, "INCOMPLETE", `Only ${offset} of ${size} bytes have arrived: send the rest from offset ${offset}.`, { offset, size }),
  unsupportedMedia: () => api(422, "UNSUPPORTED_MEDIA_TYPE", "The file is not a video (accepted: mp4, mov, m4v, avi, webm, ogv, 3gp, mkv)."),
  insufficientStorage: () =>
    api(507, "INSUFFICIENT_STORAGE", "There is not enough storage to take a file of that size now. Nothing was saved; try again later."),
  tooLarge: (max: number) => api(413, "PAYLOAD_TOO_LARGE", `The request body is larger than ${Math.floor(max / (1024 * 1024))} MB: use a resumable upload.`),
  badChunkLength: (chunk: number) =>
    api(400, "INVALID_PAYLOAD", `A chunk must be ${chunk} bytes (or a multiple of it); only the last chunk carries whatever remains.`),
  badContentType: () => api(400, "INVALID_PAYLOAD", "Chunks are sent with Content-Type: application/offset+octet-stream."),
} as const;

/** Lease on a session while one request writes to it; renewed while a chunk streams. */
const LEASE_SECONDS = 60;
/** How long a request waits for another one writing to the same session. */
const LEASE_WAIT_MS = 10_000;

export function sessionView(config: Deps["config"], row: UploadSessionRow) {
  return {
    upload_id: row.id,
    video_id: row.video_id,
    chunk_size: row.chunk_size,
    offset: row.offset,
    size: row.size,
    expires_at: row.expires_at.toISOString(),
    upload_url: `${config.publicUrl}/api/v1/uploads/${row.id}`,
  };
}

const isExpired = (deps: Deps, row: UploadSessionRow) => row.state === "expired" || row.expires_at.getTime() <= deps.clock.now();

async function findVideoOr404(deps: Deps, workspaceId: number, videoId: number | undefined): Promise<VideoRow> {
  const video = videoId === undefined ? undefined : await videosRepo.findVideo(deps.sql, workspaceId, videoId);
  if (!video) throw Errors.videoNotFound();
  return video;
}

/** 507 before anything is saved (issue: check free space before accepting). */
async function assertRoom(deps: Deps, bytes: number): Promise<void> {
  if ((await deps.blobs.media.freeBytes()) < bytes) throw UploadErrors.insufficientStorage();
}

export async function initUpload(deps: Deps, workspaceId: number, videoId: number | undefined, input: InitUploadBody): Promise<UploadSessionRow> {
  const video = await findVideoOr404(deps, workspaceId, videoId);
  await assertRoom(deps, input.size);
  const id = newUploadId();
  const key = sourceKey(id);
  const handle = await deps.blobs.media.beginChunked(key);
  try {
    return await repo.insertSession(deps.sql, {
      id,
      workspace_id: workspaceId,
      video_id: video.id,
      orientation: input.orientation ?? "landscape",
      filename: input.filename,
      mime_type: input.mime_type,
      size: input.size,
      chunk_size: CHUNK_SIZE,
      blob_key: key,
      blob_handle: handle,
      expires_at: new Date(deps.clock.now() + SESSION_LIFETIME_MS),
    });
  } catch (error) {
    await deps.blobs.media.abortChunked(key, handle).catch(() => {});
    throw error;
  }
}

/** A live (open, unexpired) session of this workspace, or UPLOAD_NOT_FOUND. */
async function liveSession(deps: Deps, workspaceId: number, id: string): Promise<UploadSessionRow> {
  const row = /^flup_[0-9a-f]{1,64}$/.test(id) ? await repo.findSession(deps.sql, workspaceId, id) : undefined;
  if (!row || row.state === "closed" || isExpired(deps, row)) throw UploadErrors.uploadNotFound();
  return row;
}

export async function getUpload(deps: Deps, workspaceId: number, id: string): Promise<UploadSessionRow> {
  return liveSession(deps, workspaceId, id);
}

/**
 * Waits (bounded) for the lease. Two PATCHes racing on one session: the second
 * waits for the first, then sees the advanced offset ("behind": 200, nothing written).
 * The lease is taken first and the row read in the same statement: one round trip
 * in the common case.
 */
async function withLease<T>(deps: Deps, workspaceId: number, id: string, run: (row: UploadSessionRow, lease: Lease) => Promise<T>): Promise<T> {
  if (!/^flup_[0-9a-f]{1,64}$/.test(id)) throw UploadErrors.uploadNotFound();
  const lease: Lease = { token: crypto.randomUUID(), held: true };
  const deadline = Date.now() + LEASE_WAIT_MS;
  let row = await repo.leaseSession(deps.sql, workspaceId, id, lease.token, LEASE_SECONDS);
  while (!row) {
    const current = await liveSession(deps, workspaceId, id);
    if (Date.now() >= deadline)
      throw UploadErrors.offsetMismatch(current.offset, `Another request is writing to this upload; retry from offset ${current.offset}.`);
    await Bun.sleep(25);
    row = await repo.leaseSession(deps.sql, workspaceId, id, lease.token, LEASE_SECONDS);
  }
  const renew = setInterval(() => void repo.renewLease(deps.sql, id, lease.token, LEASE_SECONDS).catch(() => {}), (LEASE_SECONDS * 1000) / 3);
  try {
    if (row.state === "closed" || isExpired(deps, row)) throw UploadErrors.uploadNotFound();
    return await run(row, lease);
  } finally {
    clearInterval(renew);
    if (lease.held) await repo.releaseLease(deps.sql, id, lease.token).catch(() => {});
  }
}

interface Lease {
  token: string;
  /** False once a write released it in the same statement. */
  held: boolean;
}

export interface ChunkInput {
  contentType: string | null;
  uploadOffset: string | null;
  contentLength: number | undefined;
  body: ReadableStream<Uint8Array> | null;
}

/** SPEC.md "Upload session", the PATCH rows. */
export async function writeChunk(deps: Deps, workspaceId: number, id: string, input: ChunkInput): Promise<{ offset: number; size: number }> {
  const raw = input.uploadOffset?.trim();
  if (raw === undefined || raw === "") throw UploadErrors.offsetRequired();
  if (!/^\d{1,16}$/.test(raw)) throw api(400, "OFFSET_REQUIRED", "Upload-Offset must be a non-negative integer number of bytes.");
  const claimed = Number(raw);
  if (!input.contentType || input.contentType.split(";")[0]!.trim().toLowerCase() !== "application/offset+octet-stream") {
    await liveSession(deps, workspaceId, id); // a missing session is still UPLOAD_NOT_FOUND
    throw UploadErrors.badContentType();
  }
  return withLease(deps, workspaceId, id, async (row, lease) => {
    if (claimed > row.offset) throw UploadErrors.offsetMismatch(row.offset);
    if (claimed < row.offset) return { offset: row.offset, size: row.size };
    if (row.state === "completed") throw UploadErrors.sizeExceeded(row.offset, row.size);
    checkLength(row, input.contentLength);
    return streamParts(deps, row, lease, input);
  });
}

function checkLength(row: UploadSessionRow, length: number | undefined): void {
  if (length === undefined) return;
  if (length === 0) throw UploadErrors.emptyChunk();
  if (row.offset + length > row.size) throw UploadErrors.sizeExceeded(row.offset, row.size);
  if (row.offset + length !== row.size && length % row.chunk_size !== 0) throw UploadErrors.badChunkLength(row.chunk_size);
}

/**
 * Streams the body straight into blob parts: each chunk_size slice is one part
 * (one fs append, one S3 multipart part). A body that ends early or breaks (a
 * dropped connection) loses only the part in flight; earlier parts are kept.
 */
async function streamParts(deps: Deps, row: UploadSessionRow, lease: Lease, input: ChunkInput): Promise<{ offset: number; size: number }> {
  if (!input.body) throw UploadErrors.emptyChunk();
  const reader = input.body.getReader();
  const source = new PartReader(reader);
  const parts: ChunkPart[] = [...row.parts];
  let offset = row.offset;
  try {
    while (offset < row.size) {
      const size = Math.min(row.chunk_size, row.size - offset);
      if (!(await source.hasMore().catch(() => false))) break;
      let part: ChunkPart;
      try {
        part = await deps.blobs.media.writeChunk(row.blob_key, row.blob_handle, parts.length + 1, source.next(size), size);
      } catch (error) {
        // A body that ends early or breaks (dropped connection) loses only the part
        // in flight; the client resumes from the returned (or a GET's) offset.
        if (source.bodyError !== undefined) break;
        if (error instanceof BlobError && error.code === BlobErrorCode.ShortBody) {
          // A body that ended cleanly in the middle of a part is a chunk of the wrong length.
          if (offset === row.offset) throw UploadErrors.badChunkLength(row.chunk_size);
          break;
        }
        throw error;
      }
      parts.push(part);
      offset += part.size;
      // The part that ends this request's body also gives the lease back, in the same statement.
      const last = offset >= row.size || (input.contentLength !== undefined && offset - row.offset >= input.contentLength);
      if (!(await repo.savePart(deps.sql, row.id, lease.token, parts, offset, last))) throw UploadErrors.uploadNotFound();
      if (last) lease.held = false;
    }
    if (offset === row.offset && !source.sawBytes) throw UploadErrors.emptyChunk();
    if (offset >= row.size && (await source.hasMore().catch(() => false))) throw UploadErrors.sizeExceeded(offset, row.size);
    return { offset, size: row.size };
  } finally {
    await reader.cancel().catch(() => {});
  }
}

const PIECE = 1024 * 1024;

/** Hands out consecutive fixed-size sub-streams of one body stream. */
class PartReader {
  private pending: Uint8Array | undefined;
  private ended = false;
  sawBytes = false;
  bodyError: unknown;

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  async hasMore(): Promise<boolean> {
    while (!this.pending?.byteLength && !this.ended) {
      let read: Awaited<ReturnType<typeof this.reader.read>>;
      try {
        read = await this.reader.read();
      } catch (error) {
        this.bodyError = error;
        throw error;
      }
      const { done, value } = read;
      if (done) this.ended = true;
      else this.pending = value;
    }
    return Boolean(this.pending?.byteLength);
  }

  /**
   * The next `size` bytes as a stream of pieces of up to PIECE bytes: network reads
   * are small (tens of KiB), and one disk write per piece instead of per read
   * keeps the write path near raw disk speed. Memory stays bounded by PIECE.
   */
  next(size: number): ReadableStream<Uint8Array> {
    let left = size;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const want = Math.min(left, PIECE);
        let piece: Uint8Array | undefined;
        let filled = 0;
        while (filled < want && (await this.hasMore())) {
          const chunk = this.pending!;
          const take = Math.min(want - filled, chunk.byteLength);
          this.pending = take < chunk.byteLength ? chunk.subarray(take) : undefined;
          // A read that is a whole piece on its own goes through without a copy.
          if (filled === 0 && take === want) piece = chunk.subarray(0, take);
          else (piece ??= new Uint8Array(want)).set(chunk.subarray(0, take), filled);
          filled += take;
        }
        if (filled > 0) {
          this.sawBytes = true;
          left -= filled;
          controller.enqueue(piece!.subarray(0, filled));
        }
        if (left === 0 || filled < want) controller.close();
      },
    });
  }
}

/** SPEC.md "Upload session", the complete rows. */
export async function completeUpload(deps: Deps, workspaceId: number, id: string): Promise<VideoRow> {
  const first = await liveSession(deps, workspaceId, id);
  if (first.state === "completed") return findVideoOr404(deps, workspaceId, first.video_id); // a retry whose answer was lost
  const video = await withLease(deps, workspaceId, id, async (row) => {
    if (row.state === "completed") return findVideoOr404(deps, workspaceId, row.video_id);
    if (row.state !== "open" || isExpired(deps, row)) throw UploadErrors.uploadNotFound();
    if (row.offset < row.size) throw UploadErrors.incomplete(row.offset, row.size);
    const store = deps.blobs.media;
    try {
      await store.completeChunked(row.blob_key, row.blob_handle, row.parts);
    } catch (error) {
      // An earlier complete assembled the file and then failed before recording it.
      const assembled = error instanceof BlobError && error.code === BlobErrorCode.NoSuchUpload && (await store.head(row.blob_key))?.size === row.size;
      if (!assembled) throw error;
    }
    const object = await store.get(row.blob_key, { start: 0, end: SNIFF_BYTES - 1 });
    const head = object ? await readHead(object.body) : new Uint8Array(0);
    if (!sniffContainer(head)) {
      await repo.setState(deps.sql, row.id, "closed");
      await store.delete(row.blob_key);
      throw UploadErrors.unsupportedMedia();
    }
    return deps.sql.begin(async (tx) => {
      const updated = await accept(tx, {
        workspaceId,
        videoId: row.video_id,
        orientation: row.orientation,
        sourceKey: row.blob_key,
        size: row.size,
        filename: row.filename,
        uploadId: row.id,
      });
      await repo.setState(tx, row.id, "completed");
      return updated;
    });
  });
  videoChanged(deps, video.id);
  wakeEncoder();
  return video;
}

interface Accepted {
  workspaceId: number;
  videoId: number;
  orientation: OrientationName;
  sourceKey: string;
  size: number;
  filename: string;
  uploadId: string;
}

/** The file is a video: hand it to the encoder and fire `video.uploaded`, in one transaction. */
async function accept(tx: TxSql, a: Accepted): Promise<VideoRow> {
  const video = await handToEncoder(tx, a);
  if (!video) throw Errors.videoNotFound();
  await enqueueEvent(tx, a.workspaceId, LifecycleEvents.videoUploaded, {
    video_id: video.id,
    video_code: video.code,
    orientation: a.orientation,
    size: a.size,
  });
  return video;
}

/** DELETE: chunks deleted; an expired session also answers `{deleted: true}`. */
export async function deleteUpload(deps: Deps, workspaceId: number, id: string): Promise<void> {
  const row = /^flup_[0-9a-f]{1,64}$/.test(id) ? await repo.findSession(deps.sql, workspaceId, id) : undefined;
  if (!row) throw UploadErrors.uploadNotFound();
  // A completed session's bytes are now the video's source file: they stay.
  if (row.state === "open" || row.state === "expired") await deps.blobs.media.abortChunked(row.blob_key, row.blob_handle);
  await repo.deleteSession(deps.sql, row.id);
}

/** Sweeper: expired open sessions lose their chunks (and S3 multipart uploads). */
export async function sweepExpiredUploads(deps: Deps): Promise<number> {
  const now = new Date(deps.clock.now());
  let swept = 0;
  for (let round = 0; round < 20; round++) {
    const rows = await repo.expiredOpen(deps.sql, now, 100);
    for (const row of rows) {
      await deps.blobs.media
        .abortChunked(row.blob_key, row.blob_handle)
        .catch((error) => deps.log.warn("abort of expired upload failed", { upload: row.id, error: String(error) }));
      await repo.setState(deps.sql, row.id, "expired");
      swept++;
    }
    if (rows.length < 100) break;
  }
  swept += await repo.purgeOld(deps.sql, new Date(now.getTime() - 7 * SESSION_LIFETIME_MS));
  return swept;
}

// ---- single-shot upload ----

export interface SingleShotInput {
  contentType: string | null;
  contentLength: number | undefined;
  body: ReadableStream<Uint8Array> | null;
}

/** SPEC.md "Uploads": `POST /videos/{video}/upload`, multipart, streamed to storage. */
export async function singleShotUpload(deps: Deps, workspaceId: number, videoId: number | undefined, input: SingleShotInput): Promise<VideoRow> {
  const max = deps.config.media.singleUploadMaxBytes;
  // Rule 4: refused before the body is read.
  if (input.contentLength !== undefined && input.contentLength > max) throw UploadErrors.tooLarge(max);
  await findVideoOr404(deps, workspaceId, videoId);
  if (input.contentLength !== undefined) await assertRoom(deps, input.contentLength);
  if (!input.body || !/^multipart\/form-data/i.test(input.contentType ?? ""))
    throw validation({ file: ["The file field is required (send multipart/form-data)."] });

  const uploadId = newUploadId();
  const key = sourceKey(uploadId);
  const parsed = await parseMultipart(deps, input.contentType!, input.body, key, max);
  try {
    if (!parsed.file) throw validation({ file: ["The file field is required."] });
    const orientation = parsed.orientation ?? "landscape";
    if (!(ORIENTATIONS as readonly string[]).includes(orientation)) throw validation({ orientation: ["The orientation must be landscape or portrait."] });
    if (!sniffContainer(parsed.file.head)) throw UploadErrors.unsupportedMedia();
    const file = parsed.file;
    const video = await deps.sql.begin((tx) =>
      accept(tx, {
        workspaceId,
        videoId: videoId!,
        orientation: orientation as OrientationName,
        sourceKey: key,
        size: file.size,
        filename: file.filename,
        uploadId,
      }),
    );
    videoChanged(deps, video.id);
    wakeEncoder();
    return video;
  } catch (error) {
    await deps.blobs.media.delete(key).catch(() => {});
    throw error;
  }
}

interface ParsedMultipart {
  file?: { size: number; head: Uint8Array; filename: string };
  orientation?: string;
}

/** busboy over the request stream; the `file` part goes straight to the blob store. */
function parseMultipart(deps: Deps, contentType: string, body: ReadableStream<Uint8Array>, key: string, max: number): Promise<ParsedMultipart> {
  return new Promise((resolve, reject) => {
    const result: ParsedMultipart = {};
    let stored: Promise<void> | undefined;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      input.unpipe();
      input.destroy();
      parser.destroy();
      reject(error);
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { "content-type": contentType }, limits: { files: 1, fields: 20, fieldSize: 64 * 1024, fileSize: max } });
    } catch {
      return reject(validation({ file: ["The file field is required (the multipart body could not be read)."] }));
    }
    const input = Readable.fromWeb(body as unknown as NodeReadableStream<Uint8Array>);
    parser.on("file", (name, stream, info) => {
      if (name !== "file" || stored) return void stream.resume();
      const head = new Uint8Array(SNIFF_BYTES);
      let size = 0;
      // Oversize streams are cut off (issue: "oversize streams are cut off").
      stream.on("limit", () => {
        const error = UploadErrors.tooLarge(max);
        stream.destroy(error);
        fail(error);
      });
      const counted = (Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>).pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            if (size < SNIFF_BYTES) head.set(chunk.subarray(0, SNIFF_BYTES - size), size);
            size += chunk.byteLength;
            controller.enqueue(chunk);
          },
        }),
      );
      stored = deps.blobs.media.put(key, counted, { contentType: "application/octet-stream" }).then(() => {
        result.file = { size, head: head.subarray(0, Math.min(size, SNIFF_BYTES)), filename: info.filename ?? "upload" };
      });
      stored.catch(fail);
    });
    parser.on("field", (name, value) => {
      if (name === "orientation") result.orientation = value;
    });
    parser.on("error", (error) => fail(validation({ file: [`The multipart body could not be read: ${(error as Error).message}.`] })));
    input.on("error", fail);
    parser.on("close", () => {
      (stored ?? Promise.resolve()).then(() => !failed && resolve(result), fail);
    });
    input.pipe(parser);
  });
}

export { toStatus };
