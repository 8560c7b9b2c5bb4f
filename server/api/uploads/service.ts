/**
 * docs/api.md "Uploads" and the "Upload session" state table, carried out: init,
 * chunks of any size, complete, delete, expiry. The rules themselves live in
 * session.ts, the write lease in lease.ts, the body reader in part-reader.ts and
 * the single-shot path in single-shot.ts; this file knows nothing of HTTP.
 */
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import { BlobError, BlobErrorCode, type ChunkedState } from "../../storage/blob/index.ts";
import { enqueueEvent, LifecycleEvents } from "../../storage/outbox.ts";
import type { TxSql } from "../../storage/postgres.ts";
import { handToEncoder, wakeEncoder } from "../../domains/encoding/service.ts";
import { privateBlob, sourceKey } from "../../storage/media-keys.ts";
import { readHead, sniffContainer, SNIFF_BYTES } from "../../domains/encoding/sniff.ts";
import * as videosRepo from "../videos/repo.ts";
import type { VideoRow } from "../videos/repo.ts";
import { withLease } from "./lease.ts";
import { CHUNK_SIZE, SESSION_LIFETIME_MS, type InitUploadBody, type OrientationName } from "./model.ts";
import { PartReader } from "./part-reader.ts";
import * as repo from "./repo.ts";
import type { UploadSessionRow } from "./repo.ts";
import { assertAllBytes, chunkedState, isChunkContentType, isLive, parseOffset, planChunk } from "./session.ts";
import { isUploadId, newUploadId } from "./upload-id.ts";

export async function findVideoOr404(deps: Deps, workspaceId: number, videoId: number | undefined): Promise<VideoRow> {
  const video = videoId === undefined ? undefined : await videosRepo.findVideo(deps.sql, workspaceId, videoId);
  if (!video) throw Errors.videoNotFound();
  return video;
}

/** 507 before anything is saved. */
export async function assertRoom(deps: Deps, bytes: number): Promise<void> {
  if ((await deps.blobs.private.freeBytes()) < bytes) throw Errors.insufficientStorage();
}

export async function initUpload(deps: Deps, workspaceId: number, videoId: number | undefined, input: InitUploadBody): Promise<UploadSessionRow> {
  const video = await findVideoOr404(deps, workspaceId, videoId);
  await assertRoom(deps, input.size);
  const id = newUploadId();
  const key = sourceKey(id);
  const blob = privateBlob(deps.blobs, key);
  const handle = await blob.store.beginChunked(blob.key);
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
    await blob.store.abortChunked(blob.key, handle).catch(() => {});
    throw error;
  }
}

/** A live session of this workspace (GET, HEAD), or UPLOAD_NOT_FOUND. */
export async function getUpload(deps: Deps, workspaceId: number, id: string): Promise<UploadSessionRow> {
  const row = isUploadId(id) ? await repo.findSession(deps.sql, workspaceId, id) : undefined;
  if (!row || !isLive(row, deps.clock.now())) throw Errors.uploadNotFound();
  return row;
}

export interface ChunkInput {
  contentType: string | null;
  uploadOffset: string | null;
  contentLength: number | undefined;
  body: ReadableStream<Uint8Array> | null;
}

/** The answer to a PATCH: docs/api.md's `{offset, size}`, and the expiry tus clients read from a header. */
export type ChunkReply = Pick<UploadSessionRow, "offset" | "size" | "expires_at">;

/**
 * docs/api.md "Upload session", the PATCH rows, for chunks of any size. A body that
 * breaks off keeps every byte that arrived (part-reader.ts); one that runs past
 * the declared size keeps none.
 */
export async function writeChunk(deps: Deps, workspaceId: number, id: string, input: ChunkInput): Promise<ChunkReply> {
  const claimed = parseOffset(input.uploadOffset);
  if (!isChunkContentType(input.contentType)) {
    await getUpload(deps, workspaceId, id); // a missing session is still UPLOAD_NOT_FOUND
    throw Errors.chunkContentType();
  }
  if (!isUploadId(id)) throw Errors.uploadNotFound();
  return withLease(deps, workspaceId, id, async (row, lease) => {
    const plan = planChunk(row, claimed, input.contentLength);
    if (!plan.write) return row;
    if (!input.body) throw Errors.emptyChunk();
    const reader = new PartReader(input.body, plan.limit, lease.lost);
    let state: ChunkedState;
    try {
      const blob = privateBlob(deps.blobs, row.blob_key);
      state = await blob.store.appendChunked(blob.key, row.blob_handle, chunkedState(row), reader.stream);
    } catch (error) {
      if (reader.exceeded) throw Errors.sizeExceeded(row.offset, row.size);
      if (lease.lost.aborted) throw await takenOver(deps, workspaceId, id);
      // Deleted (or expired and swept) while the chunk streamed.
      if (error instanceof BlobError && error.code === BlobErrorCode.NoSuchUpload) throw Errors.uploadNotFound();
      throw error;
    } finally {
      await reader.close();
    }
    if (reader.received === 0) throw Errors.emptyChunk();
    // The same statement gives the lease back: the next chunk may reach any process (lease.ts).
    if (!(await repo.saveProgress(deps.sql, row.id, lease.token, state))) throw await takenOver(deps, workspaceId, id);
    lease.held = false;
    return { offset: state.offset, size: row.size, expires_at: row.expires_at };
  });
}

/** The lease went to another request (or the session is gone): where the session now stands. */
async function takenOver(deps: Deps, workspaceId: number, id: string) {
  const current = await repo.findSession(deps.sql, workspaceId, id);
  if (!current || !isLive(current, deps.clock.now())) return Errors.uploadNotFound();
  return Errors.offsetMismatch(current.offset, `Another request took over this upload; continue from offset ${current.offset}.`);
}

/** docs/api.md "Upload session", the complete rows. */
export async function completeUpload(deps: Deps, workspaceId: number, id: string): Promise<VideoRow> {
  const first = await getUpload(deps, workspaceId, id);
  if (first.state === "completed") return findVideoOr404(deps, workspaceId, first.video_id); // a retry whose answer was lost
  const video = await withLease(deps, workspaceId, id, async (row) => {
    if (row.state === "completed") return findVideoOr404(deps, workspaceId, row.video_id);
    assertAllBytes(row);
    const { store, key } = privateBlob(deps.blobs, row.blob_key);
    try {
      await store.completeChunked(key, row.blob_handle, chunkedState(row));
    } catch (error) {
      // An earlier complete assembled the file and then failed before recording it.
      const gone = error instanceof BlobError && (error.code === BlobErrorCode.NoSuchUpload || error.code === BlobErrorCode.BadParts);
      if (!gone || (await store.head(key))?.size !== row.size) throw error;
    }
    const object = await store.get(key, { start: 0, end: SNIFF_BYTES - 1 });
    const head = object ? await readHead(object.body) : new Uint8Array(0);
    if (!sniffContainer(head)) {
      await repo.setState(deps.sql, row.id, "closed");
      await store.delete(key);
      throw Errors.unsupportedMediaType();
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
  deps.videoCache.evict(video.id);
  wakeEncoder(deps);
  return video;
}

export interface Accepted {
  workspaceId: number;
  videoId: number;
  orientation: OrientationName;
  sourceKey: string;
  size: number;
  filename: string;
  uploadId: string;
}

/** The file is a video: hand it to the encoder and fire `video.uploaded`, in one transaction. */
export async function accept(tx: TxSql, a: Accepted): Promise<VideoRow> {
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
  const row = isUploadId(id) ? await repo.findSession(deps.sql, workspaceId, id) : undefined;
  if (!row) throw Errors.uploadNotFound();
  // A completed session's bytes are now the video's source file: they stay.
  if (row.state === "open" || row.state === "expired") {
    const blob = privateBlob(deps.blobs, row.blob_key);
    await blob.store.abortChunked(blob.key, row.blob_handle);
  }
  await repo.deleteSession(deps.sql, row.id);
}

/** Sweeper: expired open sessions lose their chunks (fs partial files, S3 multipart uploads and staged bytes). */
export async function sweepExpiredUploads(deps: Deps): Promise<number> {
  const now = new Date(deps.clock.now());
  let swept = 0;
  for (let round = 0; round < 20; round++) {
    const rows = await repo.expiredOpen(deps.sql, now, 100);
    for (const row of rows) {
      const blob = privateBlob(deps.blobs, row.blob_key);
      await blob.store
        .abortChunked(blob.key, row.blob_handle)
        .catch((error) => deps.log.warn("abort of expired upload failed", { upload: row.id, error: String(error) }));
      await repo.setState(deps.sql, row.id, "expired");
      swept++;
    }
    if (rows.length < 100) break;
  }
  swept += await repo.purgeOld(deps.sql, new Date(now.getTime() - 7 * SESSION_LIFETIME_MS));
  return swept;
}
