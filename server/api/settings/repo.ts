/** The SQL of settings: live settings on the video row, drafts, deploy versions. */
import { json, type TxSql, type Db } from "../../storage/postgres.ts";
import type { VideoRow } from "../videos/repo.ts";
import type { Settings } from "../../../contract/settings.ts";

export interface DeployVersionRow {
  id: number;
  workspace_id: number;
  workspace_video_id: number;
  created_by: number | null;
  label: string | null;
  version_hash: string;
  /** Snapshots taken before a group existed lack it: read through `withDefaults`. */
  settings_snapshot: Partial<Settings>;
  is_live: boolean;
  created_at: Date;
  updated_at: Date;
}

export async function videoExists(sql: Db, workspaceId: number, id: number): Promise<boolean> {
  return (await sql`SELECT 1 FROM videos WHERE workspace_id = ${workspaceId} AND id = ${id}`).length > 0;
}

export async function writeLiveSettings(sql: Db, workspaceId: number, id: number, settings: Settings): Promise<VideoRow> {
  const [row]: [VideoRow?] = await sql`
    UPDATE videos SET settings = ${json(sql, settings)}, updated_at = now()
    WHERE workspace_id = ${workspaceId} AND id = ${id}
    RETURNING *`;
  return row!;
}

export async function saveDraft(sql: Db, videoId: number, settings: Settings): Promise<void> {
  await sql`
    INSERT INTO video_drafts (video_id, settings) VALUES (${videoId}, ${json(sql, settings)})
    ON CONFLICT (video_id) DO UPDATE SET settings = EXCLUDED.settings, updated_at = now()`;
}

export async function deleteDraft(sql: Db, videoId: number): Promise<void> {
  await sql`DELETE FROM video_drafts WHERE video_id = ${videoId}`;
}

/** The new version becomes the only live one of its video. */
export async function insertLiveVersion(
  tx: TxSql,
  version: Pick<DeployVersionRow, "workspace_id" | "workspace_video_id" | "label" | "version_hash" | "settings_snapshot">,
): Promise<DeployVersionRow> {
  await tx`UPDATE deploy_versions SET is_live = false, updated_at = now() WHERE workspace_video_id = ${version.workspace_video_id} AND is_live`;
  const [row]: [DeployVersionRow?] = await tx`
    INSERT INTO deploy_versions (workspace_id, workspace_video_id, created_by, label, version_hash, settings_snapshot, is_live)
    VALUES (${version.workspace_id}, ${version.workspace_video_id}, ${null}, ${version.label}, ${version.version_hash},
            ${json(tx, version.settings_snapshot)}, true)
    RETURNING *`;
  return row!;
}

export async function findVersion(sql: Db, workspaceId: number, videoId: number, versionId: number): Promise<DeployVersionRow | undefined> {
  const [row]: [DeployVersionRow?] = await sql`
    SELECT * FROM deploy_versions WHERE workspace_id = ${workspaceId} AND workspace_video_id = ${videoId} AND id = ${versionId}`;
  return row;
}

export async function listVersions(
  sql: Db,
  workspaceId: number,
  videoId: number,
  limit: number,
  offset: number,
): Promise<{ rows: DeployVersionRow[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    sql<DeployVersionRow[]>`
      SELECT * FROM deploy_versions WHERE workspace_id = ${workspaceId} AND workspace_video_id = ${videoId}
      ORDER BY id DESC LIMIT ${limit} OFFSET ${offset}`,
    sql<{ total: number }[]>`SELECT count(*)::int AS total FROM deploy_versions WHERE workspace_id = ${workspaceId} AND workspace_video_id = ${videoId}`,
  ]);
  return { rows: [...rows], total: count!.total };
}

/** Which of `codes` (UUID-shaped) name a video of this workspace: a funnel's next videos. */
export async function videoCodesOf(sql: Db, workspaceId: number, codes: string[]): Promise<Set<string>> {
  if (!codes.length) return new Set();
  const rows = await sql<{ code: string }[]>`
    SELECT code::text AS code FROM videos WHERE workspace_id = ${workspaceId} AND code = ANY(${sql.array(codes)}::uuid[])`;
  return new Set(rows.map((r) => r.code));
}
