/** The SQL of encode jobs and of the per-orientation media columns of a video. */
import { json, type Db } from "../../storage/postgres.ts";
import type { VideoRow } from "../../api/videos/repo.ts";

import type { Orientation } from "../../../contract/player-config.ts";

export type { Orientation };

export interface EncodeJobRow {
  id: number;
  workspace_id: number;
  video_id: number;
  orientation: Orientation;
  source_key: string;
  size: number;
  state: "queued" | "running" | "done" | "failed" | "superseded";
  attempts: number;
  locked_by: string | null;
  locked_until: Date | null;
  error: string | null;
}

export const mediaColumn = (o: Orientation) => `${o}_media` as const;

export async function insertJob(sql: Db, job: Pick<EncodeJobRow, "workspace_id" | "video_id" | "orientation" | "source_key" | "size">): Promise<EncodeJobRow> {
  // A newer file replaces the older one (docs/api.md "Uploads" rule 3): older jobs stop counting.
  await sql`UPDATE encode_jobs SET state = 'superseded', updated_at = now()
            WHERE video_id = ${job.video_id} AND orientation = ${job.orientation} AND state IN ('queued', 'running')`;
  const [row]: [EncodeJobRow?] = await sql`
    INSERT INTO encode_jobs (workspace_id, video_id, orientation, source_key, size)
    VALUES (${job.workspace_id}, ${job.video_id}, ${job.orientation}, ${job.source_key}, ${job.size}) RETURNING *`;
  return row!;
}

/**
 * The tables of jobs leased to one worker at a time, with the same state and lease
 * columns (state, attempts, locked_by, locked_until, error, updated_at): encode jobs
 * (0003_uploads.sql), playlist rewrites (0017_playlist_rewrite.sql), private moves (0022_private_files.sql)
 * and encryption jobs (0023_encryption.sql).
 */
export type LeasedTable = "encode_jobs" | "playlist_rewrites" | "private_moves" | "encryption_jobs";

/**
 * Takes the oldest due jobs of `table`: queued ones (a retried job's `locked_until`
 * holds it back until then) and running ones whose worker stopped renewing its lease.
 */
export async function claimLeased<T extends object>(sql: Db, table: LeasedTable, workerId: string, limit: number, leaseSeconds: number): Promise<T[]> {
  return [
    ...(await sql<T[]>`
      UPDATE ${sql(table)} SET state = 'running', attempts = attempts + 1, locked_by = ${workerId},
             locked_until = now() + make_interval(secs => ${leaseSeconds}), updated_at = now()
      WHERE id IN (
        SELECT id FROM ${sql(table)}
        WHERE (state = 'queued' AND (locked_until IS NULL OR locked_until <= now())) OR (state = 'running' AND locked_until < now())
        ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING *`),
  ];
}

/** False when the job is no longer ours (superseded, video deleted, lease taken over). */
export async function renewLeased(sql: Db, table: LeasedTable, jobId: number, workerId: string, leaseSeconds: number): Promise<boolean> {
  const rows = await sql`UPDATE ${sql(table)} SET locked_until = now() + make_interval(secs => ${leaseSeconds})
                         WHERE id = ${jobId} AND locked_by = ${workerId} AND state = 'running' RETURNING id`;
  return rows.length > 0;
}

export async function finishLeased(
  sql: Db,
  table: LeasedTable,
  jobId: number,
  workerId: string,
  state: "done" | "failed",
  error: string | null = null,
): Promise<void> {
  await sql`UPDATE ${sql(table)} SET state = ${state}, error = ${error}, locked_until = NULL, updated_at = now()
            WHERE id = ${jobId} AND locked_by = ${workerId} AND state = 'running'`;
}

/** Hands a job back to the queue, due again in `delaySeconds` (a worker stopping, or a failure worth retrying). */
export async function releaseLeased(
  sql: Db,
  table: LeasedTable,
  jobId: number,
  workerId: string,
  delaySeconds = 0,
  error: string | null = null,
): Promise<void> {
  await sql`UPDATE ${sql(table)} SET state = 'queued', locked_by = NULL, error = COALESCE(${error}, error), updated_at = now(),
              locked_until = CASE WHEN ${delaySeconds}::float8 > 0 THEN now() + make_interval(secs => ${delaySeconds}::float8) END
            WHERE id = ${jobId} AND locked_by = ${workerId} AND state = 'running'`;
}

export const finishJob = (sql: Db, jobId: number, workerId: string, state: "done" | "failed", error: string | null = null): Promise<void> =>
  finishLeased(sql, "encode_jobs", jobId, workerId, state, error);

export async function findVideoCode(sql: Db, videoId: number): Promise<{ code: string; encryption: string } | undefined> {
  const [row]: [{ code: string; encryption: string }?] = await sql`SELECT code, encryption FROM videos WHERE id = ${videoId}`;
  return row;
}

/** An encryption job (0023_encryption.sql): one video's ready segments to encrypt. */
export interface EncryptionJobRow {
  id: number;
  video_id: number;
  state: "queued" | "running" | "done" | "failed";
  attempts: number;
}

/** Queues the video's encryption unless one is already pending. */
export async function queueEncryption(sql: Db, videoId: number): Promise<void> {
  await sql`INSERT INTO encryption_jobs (video_id) VALUES (${videoId})
            ON CONFLICT (video_id) WHERE state IN ('queued', 'running') DO NOTHING`;
}

/** The video's AES-128 key, made on first use (two processes making it at once keep one). */
export async function videoKey(sql: Db, videoId: number): Promise<Uint8Array> {
  const made = crypto.getRandomValues(new Uint8Array(16));
  await sql`INSERT INTO video_keys (video_id, key) VALUES (${videoId}, ${Buffer.from(made)}) ON CONFLICT (video_id) DO NOTHING`;
  const [row]: [{ key: Uint8Array }?] = await sql`SELECT key FROM video_keys WHERE video_id = ${videoId}`;
  return row!.key;
}

export async function olderSources(sql: Db, job: EncodeJobRow): Promise<string[]> {
  const rows = await sql<{ source_key: string }[]>`
    SELECT source_key FROM encode_jobs WHERE video_id = ${job.video_id} AND orientation = ${job.orientation} AND id < ${job.id}`;
  return rows.map((r) => r.source_key);
}

/** Replaces the orientation's media state (a new file); a video whose only file is portrait opens in portrait. */
export async function setMedia(
  sql: Db,
  workspaceId: number,
  videoId: number,
  orientation: Orientation,
  media: Record<string, unknown>,
): Promise<VideoRow | undefined> {
  const col = mediaColumn(orientation);
  const other = mediaColumn(orientation === "landscape" ? "portrait" : "landscape");
  const [row]: [VideoRow?] = await sql`
    UPDATE videos SET ${sql(col)} = ${json(sql, media)}::jsonb,
      default_orientation = CASE WHEN ${sql(other)} IS NULL THEN ${orientation} ELSE default_orientation END,
      updated_at = now()
    WHERE id = ${videoId} AND workspace_id = ${workspaceId}
    RETURNING *`;
  return row;
}

/**
 * Merges `patch` into the orientation's media state, only while `jobId` is still
 * the file of that orientation; returns false when a newer upload took over.
 */
export async function patchMedia(
  sql: Db,
  videoId: number,
  orientation: Orientation,
  jobId: number,
  patch: Record<string, unknown>,
  keys?: { hls: string | null; thumb: string | null },
): Promise<boolean> {
  const col = mediaColumn(orientation);
  const rows = await sql`
    UPDATE videos SET ${sql(col)} = ${sql(col)} || ${json(sql, patch)}::jsonb
      ${keys ? sql`, ${sql(`${orientation}_hls`)} = ${keys.hls}, ${sql(`${orientation}_thumb`)} = ${keys.thumb}` : sql``}
    WHERE id = ${videoId} AND (${sql(col)} ->> 'job_id')::bigint = ${jobId}
    RETURNING id`;
  return rows.length > 0;
}

/** A playlist rewrite (0017_playlist_rewrite.sql): brings older videos' playlists to one authoring version. */
export interface PlaylistRewriteRow {
  id: number;
  version: number;
  state: "queued" | "running" | "done" | "failed";
  attempts: number;
  after_video: number;
  rewritten: number;
  skipped: number;
}

/** Records progress past `afterVideo`; false when the rewrite is no longer the worker's. */
export async function advanceRewrite(sql: Db, id: number, workerId: string, afterVideo: number, rewritten: number, skipped: number): Promise<boolean> {
  const rows =
    await sql`UPDATE playlist_rewrites SET after_video = ${afterVideo}, rewritten = rewritten + ${rewritten}, skipped = skipped + ${skipped}, updated_at = now()
                         WHERE id = ${id} AND locked_by = ${workerId} AND state = 'running' RETURNING id`;
  return rows.length > 0;
}

export type RewriteVideo = Pick<
  VideoRow,
  "id" | "workspace_id" | "code" | "landscape_hls" | "portrait_hls" | "landscape_thumb" | "portrait_thumb" | "landscape_media" | "portrait_media"
>;

/** Videos after `afterVideo` with a ready orientation whose playlists predate `version`, in id order. */
export async function videosToRewrite(sql: Db, afterVideo: number, version: number, limit: number): Promise<RewriteVideo[]> {
  const stale = (o: Orientation) =>
    sql`(${sql(mediaColumn(o))} ->> 'status' = 'ready' AND COALESCE((${sql(mediaColumn(o))} ->> 'playlists')::int, 0) < ${version})`;
  return [
    ...(await sql<RewriteVideo[]>`
      SELECT id, workspace_id, code, landscape_hls, portrait_hls, landscape_thumb, portrait_thumb, landscape_media, portrait_media
      FROM videos WHERE id > ${afterVideo} AND (${stale("landscape")} OR ${stale("portrait")})
      ORDER BY id LIMIT ${limit}`),
  ];
}
