/** The SQL of publishing a player: the workspace code, playlist items' media, the playlists that list a video. */
import { json, type Db } from "../../storage/postgres.ts";
import type { ItemMedia } from "../../../compiler/index.ts";
import type { VideoRow } from "../../api/videos/repo.ts";

export async function workspaceCode(db: Db, workspaceId: number): Promise<string | undefined> {
  const [row]: [{ code: string }?] = await db`SELECT code FROM workspaces WHERE id = ${workspaceId}`;
  return row?.code;
}

/** Playlist items' media, from videos of the same workspace only (a code elsewhere stays unknown). */
export async function itemMedia(db: Db, workspaceId: number, codes: string[]): Promise<ItemMedia[]> {
  if (codes.length === 0) return [];
  return db<ItemMedia[]>`
    SELECT code::text AS code, default_orientation, landscape_hls, portrait_hls, landscape_thumb, portrait_thumb, require_signed_urls
    FROM videos WHERE workspace_id = ${workspaceId} AND code::text = ANY(${codes}::text[])`;
}

/** Containers whose playlist lists `code`: their bundles carry this video's media. */
export async function containersOf(db: Db, workspaceId: number, code: string, exceptId: number): Promise<VideoRow[]> {
  return db<VideoRow[]>`
    SELECT * FROM videos
    WHERE workspace_id = ${workspaceId} AND id <> ${exceptId}
      AND settings -> 'playlist_options' -> 'items' @> ${json(db, [{ video_code: code }])}
    ORDER BY id LIMIT 100`;
}

/** The code of the split test a video is the control of while the test is not ended (its embed serves the test). */
export async function liveTestCodeOfControl(db: Db, workspaceId: number, videoId: number): Promise<string | undefined> {
  const [row]: [{ code: string }?] = await db`
    SELECT code FROM split_tests
    WHERE workspace_id = ${workspaceId} AND control_video_id = ${videoId} AND status <> 'ended' ORDER BY id DESC LIMIT 1`;
  return row?.code;
}
