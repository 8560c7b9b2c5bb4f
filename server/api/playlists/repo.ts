/** The SQL of playlists: container videos whose `playlist_options.enabled` is true. */
import type { Db } from "../../storage/postgres.ts";
import type { VideoRow } from "../videos/repo.ts";

const enabled = (sql: Db) => sql`(settings -> 'playlist_options' ->> 'enabled') = 'true'`;

export async function findEnabledPlaylist(sql: Db, workspaceId: number, videoId: number): Promise<VideoRow | undefined> {
  const [row]: [VideoRow?] = await sql`SELECT * FROM videos WHERE workspace_id = ${workspaceId} AND id = ${videoId} AND ${enabled(sql)}`;
  return row;
}

export async function listEnabledPlaylists(sql: Db, workspaceId: number, limit: number, offset: number): Promise<{ rows: VideoRow[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    sql<VideoRow[]>`SELECT * FROM videos WHERE workspace_id = ${workspaceId} AND ${enabled(sql)} ORDER BY id LIMIT ${limit} OFFSET ${offset}`,
    sql<{ total: number }[]>`SELECT count(*)::int AS total FROM videos WHERE workspace_id = ${workspaceId} AND ${enabled(sql)}`,
  ]);
  return { rows: [...rows], total: count!.total };
}
