/**
 * docs/api.md's "Upload session" state table as pure functions: what a PATCH, a
 * complete or a read may do with a session, decided before a byte is read.
 * service.ts carries the decisions out.
 */
import { Errors } from "../../errors.ts";
import type { ChunkedState } from "../../storage/blob/index.ts";
import type { UploadSessionRow } from "./repo.ts";

type Session = Pick<UploadSessionRow, "state" | "offset" | "size" | "expires_at">;

/** Visible to GET, PATCH and complete: not closed, not expired (a completed session stays readable). */
export const isLive = (row: Session, now: number): boolean => row.state !== "closed" && row.state !== "expired" && row.expires_at.getTime() > now;

/** `Upload-Offset`: required, a whole number of bytes. */
export function parseOffset(raw: string | null): number {
  const value = raw?.trim();
  if (value === undefined || value === "") throw Errors.offsetRequired();
  if (!/^\d{1,16}$/.test(value)) throw Errors.offsetRequired("Upload-Offset must be a non-negative integer number of bytes.");
  return Number(value);
}

export const CHUNK_CONTENT_TYPE = "application/offset+octet-stream";

export const isChunkContentType = (contentType: string | null): boolean => contentType?.split(";")[0]?.trim().toLowerCase() === CHUNK_CONTENT_TYPE;

/** What a PATCH does: nothing (its offset is behind), or append at most `limit` bytes. */
export type ChunkPlan = { write: false } | { write: true; limit: number };

/**
 * The PATCH rows, for a chunk of any length (`chunk_size` is a recommendation):
 * ahead of the server → 409 with the real offset; behind → 200 with the real
 * offset and nothing written; at the offset → append. A declared length of
 * zero, or one that runs past the declared size, is refused before reading.
 */
export function planChunk(row: Session, claimed: number, length: number | undefined): ChunkPlan {
  if (claimed > row.offset) throw Errors.offsetMismatch(row.offset);
  if (claimed < row.offset) return { write: false };
  if (length === 0) throw Errors.emptyChunk();
  const limit = row.size - row.offset;
  if (row.state === "completed" || limit === 0 || (length ?? 0) > limit) throw Errors.sizeExceeded(row.offset, row.size);
  return { write: true, limit };
}

/** The complete rows: every declared byte must have arrived. */
export function assertAllBytes(row: Session): void {
  if (row.offset < row.size) throw Errors.incomplete(row.offset, row.size);
}

/** What the blob store needs to continue the upload. */
export const chunkedState = (row: Pick<UploadSessionRow, "offset" | "parts">): ChunkedState => ({ offset: row.offset, parts: row.parts });

/** docs/api.md "Upload session" object; `upload_url` is where chunks (and tus clients) go. */
export function sessionView(publicUrl: string, row: UploadSessionRow) {
  return {
    upload_id: row.id,
    video_id: row.video_id,
    chunk_size: row.chunk_size,
    offset: row.offset,
    size: row.size,
    expires_at: row.expires_at.toISOString(),
    upload_url: `${publicUrl}/api/v1/uploads/${row.id}`,
  };
}
