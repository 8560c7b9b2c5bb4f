/** The SQL of videos. Every query is bounded by the caller's workspace. */
import { json, type TxSql, type Db } from "../../storage/postgres.ts";
import type { Settings } from "../../../contract/settings.ts";
import type { SortColumn } from "./model.ts";

export interface MediaState {
  status: "processing" | "ready" | "error";
  progress: number;
  error: string | null;
  [detail: string]: unknown;
}

export interface VideoRow {
  id: number;
  workspace_id: number;
  code: string;
  title: string;
  folder_id: number | null;
  tags: string[];
  player_version: string;
  plain_mode: boolean;
  default_orientation: "landscape" | "portrait";
  /** Rows written before a group existed lack it: read through `withDefaults`. */
  settings: Partial<Settings>;
  /** Media-store keys of the master playlist and poster (storage/media-keys.ts), not URLs. */
  landscape_hls: string | null;
  portrait_hls: string | null;
  landscape_thumb: string | null;
  portrait_thumb: string | null;
  landscape_media: MediaState | null;
  portrait_media: MediaState | null;
  /** Playback protection (0018): sites allowed to play it (empty: any) and whether media needs a signed token. */
  allowed_origins: string[];
  require_signed_urls: boolean;
  /** Encrypted streams (0023): segments encrypted with AES-128 under the video's key. */
  encryption: "none" | "aes-128";
  created_at: Date;
  updated_at: Date;
}

export type SlimVideoRow = Pick<VideoRow, "id" | "title" | "code" | "workspace_id" | "created_at" | "updated_at">;

export async function findVideo(sql: Db, workspaceId: number, id: number): Promise<VideoRow | undefined> {
  const [row]: [VideoRow?] = await sql`SELECT * FROM videos WHERE workspace_id = ${workspaceId} AND id = ${id}`;
  return row;
}

/** For the read cache only: callers check the workspace themselves. */
export async function findVideoById(sql: Db, id: number): Promise<VideoRow | undefined> {
  const [row]: [VideoRow?] = await sql`SELECT * FROM videos WHERE id = ${id}`;
  return row;
}

export async function insertVideo(
  sql: Db,
  video: Pick<VideoRow, "workspace_id" | "title" | "folder_id" | "tags" | "player_version" | "plain_mode" | "settings"> &
    Partial<Pick<VideoRow, "default_orientation" | "allowed_origins" | "require_signed_urls">>,
): Promise<VideoRow> {
  // A new video starts with its workspace's playback defaults unless told otherwise.
  const [row]: [VideoRow?] = await sql`
    INSERT INTO videos (workspace_id, code, title, folder_id, tags, player_version, plain_mode, default_orientation, settings,
                        allowed_origins, require_signed_urls)
    SELECT ${video.workspace_id}, ${crypto.randomUUID()}, ${video.title}, ${video.folder_id}, ${sql.array(video.tags)},
           ${video.player_version}, ${video.plain_mode}, ${video.default_orientation ?? "landscape"}, ${json(sql, video.settings)},
           ${video.allowed_origins === undefined ? sql`COALESCE(d.allowed_origins, '{}')` : sql.array(video.allowed_origins)},
           ${video.require_signed_urls === undefined ? sql`COALESCE(d.require_signed_urls, false)` : video.require_signed_urls}
    FROM (SELECT 1) one LEFT JOIN playback_defaults d ON d.workspace_id = ${video.workspace_id}
    RETURNING *`;
  return row!;
}

export async function updateVideo(
  sql: Db,
  workspaceId: number,
  id: number,
  changes: {
    title?: string;
    folder_id?: number | null;
    tags?: string[];
    allowed_origins?: string[];
    require_signed_urls?: boolean;
    encryption?: VideoRow["encryption"];
  },
): Promise<VideoRow | undefined> {
  const [row]: [VideoRow?] = await sql`
    UPDATE videos SET
      title = ${changes.title === undefined ? sql`title` : changes.title},
      folder_id = ${changes.folder_id === undefined ? sql`folder_id` : changes.folder_id},
      tags = ${changes.tags === undefined ? sql`tags` : sql.array(changes.tags)},
      allowed_origins = ${changes.allowed_origins === undefined ? sql`allowed_origins` : sql.array(changes.allowed_origins)},
      require_signed_urls = ${changes.require_signed_urls === undefined ? sql`require_signed_urls` : changes.require_signed_urls},
      encryption = ${changes.encryption === undefined ? sql`encryption` : changes.encryption},
      updated_at = now()
    WHERE workspace_id = ${workspaceId} AND id = ${id}
    RETURNING *`;
  return row;
}

export interface VideoFiles {
  sourceKeys: string[];
  openUploads: { blob_key: string; blob_handle: string }[];
}

/** Blob keys a video's upload sessions and encode jobs hold. */
export async function filesOfVideo(sql: Db, videoId: number): Promise<VideoFiles> {
  const jobs = await sql<{ source_key: string }[]>`SELECT DISTINCT source_key FROM encode_jobs WHERE video_id = ${videoId}`;
  const openUploads = await sql<{ blob_key: string; blob_handle: string }[]>`
    SELECT blob_key, blob_handle FROM upload_sessions WHERE video_id = ${videoId} AND state = 'open'`;
  return { sourceKeys: jobs.map((j) => j.source_key), openUploads: [...openUploads] };
}

export async function deleteVideo(sql: Db, workspaceId: number, id: number): Promise<VideoRow | undefined> {
  // The pending draft goes with it (ON DELETE CASCADE on video_drafts).
  const [row]: [VideoRow?] = await sql`DELETE FROM videos WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING *`;
  return row;
}

export interface ListFilter {
  sort: SortColumn;
  order: "asc" | "desc";
  limit: number;
  offset: number;
  folderId?: number;
  search?: string;
}

export async function listVideos(sql: Db, workspaceId: number, filter: ListFilter): Promise<{ rows: SlimVideoRow[]; total: number }> {
  const where = sql`workspace_id = ${workspaceId}
    ${filter.folderId === undefined ? sql`` : sql`AND folder_id = ${filter.folderId}`}
    ${filter.search ? sql`AND title ILIKE ${"%" + filter.search.replace(/[\\%_]/g, "\\$&") + "%"}` : sql``}`;
  const direction = filter.order === "asc" ? sql`ASC` : sql`DESC`;
  const [rows, [count]] = await Promise.all([
    sql<SlimVideoRow[]>`
      SELECT id, title, code, workspace_id, created_at, updated_at FROM videos WHERE ${where}
      ORDER BY ${sql(filter.sort)} ${direction}, id ${direction}
      LIMIT ${filter.limit} OFFSET ${filter.offset}`,
    sql<{ total: number }[]>`SELECT count(*)::int AS total FROM videos WHERE ${where}`,
  ]);
  return { rows: [...rows], total: count!.total };
}

export async function folderBelongsTo(sql: Db, workspaceId: number, folderId: number): Promise<boolean> {
  const [row] = await sql`SELECT 1 FROM folders WHERE workspace_id = ${workspaceId} AND id = ${folderId}`;
  return Boolean(row);
}

/** The video row, locked until the transaction ends so deploys of one video run one at a time. */
export async function lockVideo(tx: TxSql, workspaceId: number, id: number): Promise<VideoRow | undefined> {
  const [row]: [VideoRow?] = await tx`SELECT * FROM videos WHERE workspace_id = ${workspaceId} AND id = ${id} FOR UPDATE`;
  return row;
}
