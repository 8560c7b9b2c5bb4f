/** The SQL of exports. Reads are bounded by the caller's workspace; the job calls are not (workers serve all). */
import type { Sql, Db } from "../../storage/postgres.ts";
import type { ExportFormat, ExportStatus, ExportType } from "./model.ts";

export interface ExportRow {
  id: number;
  public_id: string;
  workspace_id: number;
  type: ExportType;
  format: ExportFormat;
  video_ids: number[];
  video_codes: string[];
  date_from: string;
  date_to: string;
  /** What a breakdown export breaks down by (null for the other types). */
  breakdown_by: string | null;
  status: ExportStatus;
  attempts: number;
  locked_until: Date | null;
  blob_key: string | null;
  row_count: number | null;
  byte_size: number | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
  expires_at: Date;
}

// Dates come back as YYYY-MM-DD text, never shifted by the process time zone.
const COLUMNS = (sql: Db) => sql`id, public_id, workspace_id, type, format, video_ids, video_codes, date_from::text AS date_from, date_to::text AS date_to,
  breakdown_by, status, attempts, locked_until, blob_key, row_count, byte_size, error, created_at, updated_at, finished_at, expires_at`;

export async function insertExport(
  sql: Db,
  row: Pick<
    ExportRow,
    "public_id" | "workspace_id" | "type" | "format" | "video_ids" | "video_codes" | "date_from" | "date_to" | "breakdown_by" | "expires_at"
  > & {
    created_at: Date;
  },
): Promise<ExportRow> {
  const [created]: [ExportRow?] = await sql`
    INSERT INTO exports (public_id, workspace_id, type, format, video_ids, video_codes, date_from, date_to, breakdown_by, created_at, updated_at, expires_at)
    VALUES (${row.public_id}, ${row.workspace_id}, ${row.type}, ${row.format}, ${sql.array(row.video_ids)}::bigint[], ${sql.array(row.video_codes)}::text[],
            ${row.date_from}, ${row.date_to}, ${row.breakdown_by}, ${row.created_at}, ${row.created_at}, ${row.expires_at})
    RETURNING ${COLUMNS(sql)}`;
  return created!;
}

export async function findExport(sql: Db, workspaceId: number, publicId: string): Promise<ExportRow | undefined> {
  const [row]: [ExportRow?] = await sql`SELECT ${COLUMNS(sql)} FROM exports WHERE workspace_id = ${workspaceId} AND public_id = ${publicId}`;
  return row;
}

export async function videosOf(sql: Db, workspaceId: number, ids: number[]): Promise<{ id: number; code: string }[]> {
  return [
    ...(await sql<
      { id: number; code: string }[]
    >`SELECT id, code::text AS code FROM videos WHERE workspace_id = ${workspaceId} AND id = ANY(${sql.array(ids)}::bigint[])`),
  ];
}

/**
 * Takes the oldest exports waiting to be built (a retried one's `locked_until` holds it
 * back until then), or ones whose builder's lease ran out (it crashed), and leases them.
 * SKIP LOCKED lets many workers share the queue; `attempts` fences a stale builder out.
 */
export async function claimExports(sql: Sql, now: Date, leaseUntil: Date, limit: number): Promise<ExportRow[]> {
  return [
    ...(await sql<ExportRow[]>`
      UPDATE exports SET status = 'processing', attempts = attempts + 1, locked_until = ${leaseUntil}, updated_at = ${now}
      WHERE id IN (
        SELECT id FROM exports
        WHERE ((status = 'pending' AND (locked_until IS NULL OR locked_until <= ${now})) OR (status = 'processing' AND locked_until < ${now}))
          AND expires_at > ${now}
        ORDER BY created_at, id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      )
      RETURNING ${COLUMNS(sql)}`),
  ];
}

/** False when the attempt is no longer current (another builder took the export over). */
export async function extendLease(sql: Sql, id: number, attempts: number, leaseUntil: Date): Promise<boolean> {
  const rows = await sql`UPDATE exports SET locked_until = ${leaseUntil} WHERE id = ${id} AND status = 'processing' AND attempts = ${attempts} RETURNING id`;
  return rows.length > 0;
}

/** Only the worker holding the current attempt may finish it (a stale one after a lease loss may not). */
export async function markReady(
  sql: Sql,
  id: number,
  attempts: number,
  done: { blobKey: string; rowCount: number; byteSize: number; at: Date },
): Promise<boolean> {
  const rows = await sql`
    UPDATE exports SET status = 'ready', blob_key = ${done.blobKey}, row_count = ${done.rowCount}, byte_size = ${done.byteSize},
      locked_until = NULL, error = NULL, finished_at = ${done.at}, updated_at = ${done.at}
    WHERE id = ${id} AND status = 'processing' AND attempts = ${attempts}
    RETURNING id`;
  return rows.length > 0;
}

/**
 * A failed attempt goes back to pending, due again at `retryAt` (null: at once), or
 * with `retryAt` undefined reads `failed`.
 */
export async function markAttemptFailed(sql: Sql, id: number, attempts: number, error: string, at: Date, retryAt: Date | null | undefined): Promise<void> {
  const final = retryAt === undefined;
  await sql`
    UPDATE exports SET status = ${final ? "failed" : "pending"}, error = ${error}, locked_until = ${retryAt ?? null}, updated_at = ${at},
      finished_at = ${final ? at : null}
    WHERE id = ${id} AND status = 'processing' AND attempts = ${attempts}`;
}

/** Back to pending at once, its error untouched (the builder is stopping). */
export async function releaseExport(sql: Sql, id: number, attempts: number, at: Date): Promise<void> {
  await sql`UPDATE exports SET status = 'pending', locked_until = NULL, updated_at = ${at} WHERE id = ${id} AND status = 'processing' AND attempts = ${attempts}`;
}

export async function listExpired(sql: Sql, now: Date, limit = 500): Promise<{ id: number; blob_key: string | null }[]> {
  return [
    ...(await sql<{ id: number; blob_key: string | null }[]>`SELECT id, blob_key FROM exports WHERE expires_at <= ${now} ORDER BY expires_at LIMIT ${limit}`),
  ];
}

export async function deleteExports(sql: Sql, ids: number[]): Promise<number> {
  const rows = await sql`DELETE FROM exports WHERE id = ANY(${sql.array(ids)}::bigint[]) RETURNING id`;
  return rows.length;
}
