/**
 * The SQL of the private mover (0022_private_files.sql): the rows that still name a
 * source or export file by its key from before the private store, and the one
 * statement that points them at the moved key.
 */
import type { Db, Sql } from "../../storage/postgres.ts";
import { PRIVATE_PREFIX } from "../../storage/media-keys.ts";

export interface PrivateMoveRow {
  id: number;
  version: number;
  state: "queued" | "running" | "done" | "failed";
  attempts: number;
  moved: number;
}

const NOT_PRIVATE = `${PRIVATE_PREFIX}%`;

/**
 * Old keys still named by a row, in key order after `after`. Open uploads are left
 * where they are: their chunks are an S3 multipart upload in flight, which cannot
 * move; they are read and deleted by their old key (media-keys.ts `privateBlob`).
 */
export async function oldKeys(sql: Db, after: string, limit: number): Promise<string[]> {
  const rows = await sql<{ key: string }[]>`
    SELECT key FROM (
      SELECT source_key AS key FROM encode_jobs WHERE source_key NOT LIKE ${NOT_PRIVATE}
      UNION SELECT blob_key FROM exports WHERE blob_key IS NOT NULL AND blob_key NOT LIKE ${NOT_PRIVATE}
    ) k WHERE key > ${after} ORDER BY key LIMIT ${limit}`;
  return rows.map((r) => r.key);
}

/** Every row naming `from` names `to` instead, in one transaction. */
export async function pointAt(sql: Sql, from: string, to: string): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`UPDATE encode_jobs SET source_key = ${to} WHERE source_key = ${from}`;
    await tx`UPDATE upload_sessions SET blob_key = ${to} WHERE blob_key = ${from} AND state <> 'open'`;
    await tx`UPDATE exports SET blob_key = ${to} WHERE blob_key = ${from}`;
  });
}

/** Counts the keys moved; false when the job is no longer the worker's. */
export async function advanceMove(sql: Db, id: number, workerId: string, moved: number): Promise<boolean> {
  const rows = await sql`UPDATE private_moves SET moved = moved + ${moved}, updated_at = now()
                         WHERE id = ${id} AND locked_by = ${workerId} AND state = 'running' RETURNING id`;
  return rows.length > 0;
}
