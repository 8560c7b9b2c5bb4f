/** The SQL of folders. */
import type { Db, Sql } from "../../storage/postgres.ts";

export interface FolderRow {
  id: number;
  parent_id: number | null;
  name: string;
  color: string | null;
  created_at: Date;
  updated_at: Date;
  videos_count?: number;
}

/** Undefined when `parent_id` names no folder of this workspace. */
export async function insertFolder(
  sql: Db,
  workspaceId: number,
  input: { name: string; parent_id?: number | null; color?: string | null },
): Promise<FolderRow | undefined> {
  const [row]: [FolderRow?] = await sql`
    INSERT INTO folders (workspace_id, parent_id, name, color)
    SELECT ${workspaceId}, ${input.parent_id ?? null}, ${input.name}, ${input.color ?? null}
    WHERE ${input.parent_id ?? null}::bigint IS NULL
       OR EXISTS (SELECT 1 FROM folders WHERE workspace_id = ${workspaceId} AND id = ${input.parent_id ?? null})
    RETURNING id, parent_id, name, color, created_at, updated_at`;
  return row;
}

export async function listFolders(sql: Sql, workspaceId: number): Promise<FolderRow[]> {
  return [
    ...(await sql<FolderRow[]>`
      SELECT f.id, f.parent_id, f.name, f.color, f.created_at, f.updated_at,
             (SELECT count(*)::int FROM videos v WHERE v.folder_id = f.id) AS videos_count
      FROM folders f WHERE f.workspace_id = ${workspaceId} ORDER BY f.id`),
  ];
}
