/** The SQL of upload sessions. Every read is bounded by the caller's workspace. */
import type { ChunkPart, ChunkedState } from "../../storage/blob/index.ts";
import { json, type Db } from "../../storage/postgres.ts";
import type { OrientationName } from "./model.ts";

export interface UploadSessionRow {
  id: string;
  workspace_id: number;
  video_id: number;
  orientation: OrientationName;
  filename: string;
  mime_type: string;
  size: number;
  chunk_size: number;
  offset: number;
  parts: ChunkPart[];
  blob_key: string;
  blob_handle: string;
  state: "open" | "completed" | "closed" | "expired";
  lock_token: string | null;
  locked_until: Date | null;
  expires_at: Date;
  created_at: Date;
}

export async function insertSession(
  sql: Db,
  s: Pick<
    UploadSessionRow,
    "id" | "workspace_id" | "video_id" | "orientation" | "filename" | "mime_type" | "size" | "chunk_size" | "blob_key" | "blob_handle" | "expires_at"
  >,
): Promise<UploadSessionRow> {
  const [row]: [UploadSessionRow?] = await sql`
    INSERT INTO upload_sessions (id, workspace_id, video_id, orientation, filename, mime_type, size, chunk_size, blob_key, blob_handle, expires_at)
    VALUES (${s.id}, ${s.workspace_id}, ${s.video_id}, ${s.orientation}, ${s.filename}, ${s.mime_type}, ${s.size}, ${s.chunk_size},
            ${s.blob_key}, ${s.blob_handle}, ${s.expires_at})
    RETURNING *`;
  return row!;
}

export async function findSession(sql: Db, workspaceId: number, id: string): Promise<UploadSessionRow | undefined> {
  const [row]: [UploadSessionRow?] = await sql`SELECT * FROM upload_sessions WHERE workspace_id = ${workspaceId} AND id = ${id}`;
  return row;
}

/**
 * Takes the session's write lease, or returns undefined while another request
 * holds it. The lease is a row value, not a held lock: no connection or
 * transaction stays open while a chunk streams in.
 */
export async function leaseSession(sql: Db, workspaceId: number, id: string, token: string, seconds: number): Promise<UploadSessionRow | undefined> {
  const [row]: [UploadSessionRow?] = await sql`
    UPDATE upload_sessions SET lock_token = ${token}, locked_until = now() + make_interval(secs => ${seconds})
    WHERE workspace_id = ${workspaceId} AND id = ${id} AND (locked_until IS NULL OR locked_until < now())
    RETURNING *`;
  return row;
}

export async function renewLease(sql: Db, id: string, token: string, seconds: number): Promise<boolean> {
  const rows = await sql`UPDATE upload_sessions SET locked_until = now() + make_interval(secs => ${seconds})
                         WHERE id = ${id} AND lock_token = ${token} RETURNING id`;
  return rows.length > 0;
}

export async function releaseLease(sql: Db, id: string, token: string): Promise<void> {
  await sql`UPDATE upload_sessions SET lock_token = NULL, locked_until = NULL WHERE id = ${id} AND lock_token = ${token}`;
}

/**
 * Records the bytes a chunk added, in one statement with giving the lease back;
 * only the lease holder may.
 */
export async function saveProgress(sql: Db, id: string, token: string, state: ChunkedState): Promise<boolean> {
  // No RETURNING: the count of rows updated says whether the lease was still ours, in one answer packet less per chunk.
  const result = await sql`
    UPDATE upload_sessions SET parts = ${json(sql, state.parts)}::jsonb, "offset" = ${state.offset}, updated_at = now(), lock_token = NULL, locked_until = NULL
    WHERE id = ${id} AND lock_token = ${token}`;
  return result.count > 0;
}

export async function setState(sql: Db, id: string, state: UploadSessionRow["state"]): Promise<void> {
  await sql`UPDATE upload_sessions SET state = ${state}, lock_token = NULL, locked_until = NULL, updated_at = now() WHERE id = ${id}`;
}

export async function deleteSession(sql: Db, id: string): Promise<void> {
  await sql`DELETE FROM upload_sessions WHERE id = ${id}`;
}

/** Open sessions past their 24 hours, oldest first. */
export async function expiredOpen(sql: Db, now: Date, limit: number): Promise<UploadSessionRow[]> {
  return [...(await sql<UploadSessionRow[]>`SELECT * FROM upload_sessions WHERE state = 'open' AND expires_at <= ${now} ORDER BY expires_at LIMIT ${limit}`)];
}

/** Rows kept after expiry so DELETE can still answer `{deleted: true}`; gone after a week. */
export async function purgeOld(sql: Db, before: Date): Promise<number> {
  const rows = await sql`DELETE FROM upload_sessions WHERE state <> 'open' AND expires_at <= ${before} RETURNING id`;
  return rows.length;
}
