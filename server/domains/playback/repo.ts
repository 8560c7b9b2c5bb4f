/** The SQL of playback protection: a video's protection by code, workspace defaults and signing keys. */
import type { Db } from "../../storage/postgres.ts";

export interface Protection {
  workspace_id: number;
  allowed_origins: string[];
  require_signed_urls: boolean;
}

export interface PlaybackDefaults {
  allowed_origins: string[];
  require_signed_urls: boolean;
}

export interface SigningKeyRow {
  id: string;
  workspace_id: number;
  secret: string;
  internal: boolean;
  created_at: Date;
  revoked_at: Date | null;
}

/** A narrow read of videos: what the media host decides on. */
export async function protectionOf(sql: Db, code: string): Promise<Protection | undefined> {
  const [row]: [Protection?] = await sql`
    SELECT workspace_id::int AS workspace_id, allowed_origins, require_signed_urls FROM videos WHERE code = ${code}`;
  return row;
}

/** A narrow read of video_keys (0023): the AES-128 key of the video with this code. */
export async function streamKeyOf(sql: Db, code: string): Promise<Uint8Array | undefined> {
  const [row]: [{ key: Uint8Array }?] = await sql`
    SELECT k.key FROM video_keys k JOIN videos v ON v.id = k.video_id WHERE v.code = ${code}`;
  return row?.key;
}

export async function findDefaults(sql: Db, workspaceId: number): Promise<PlaybackDefaults> {
  const [row]: [PlaybackDefaults?] = await sql`
    SELECT allowed_origins, require_signed_urls FROM playback_defaults WHERE workspace_id = ${workspaceId}`;
  return row ?? { allowed_origins: [], require_signed_urls: false };
}

export async function upsertDefaults(sql: Db, workspaceId: number, changes: Partial<PlaybackDefaults>): Promise<PlaybackDefaults> {
  const [row]: [PlaybackDefaults?] = await sql`
    INSERT INTO playback_defaults (workspace_id, allowed_origins, require_signed_urls)
    VALUES (${workspaceId}, ${sql.array(changes.allowed_origins ?? [])}, ${changes.require_signed_urls ?? false})
    ON CONFLICT (workspace_id) DO UPDATE SET
      allowed_origins = ${changes.allowed_origins === undefined ? sql`playback_defaults.allowed_origins` : sql.array(changes.allowed_origins)},
      require_signed_urls = ${changes.require_signed_urls === undefined ? sql`playback_defaults.require_signed_urls` : changes.require_signed_urls},
      updated_at = now()
    RETURNING allowed_origins, require_signed_urls`;
  return row!;
}

const KEY_COLUMNS = (sql: Db) => sql`id::text AS id, workspace_id::int AS workspace_id, secret, internal, created_at, revoked_at`;

export async function insertKey(sql: Db, workspaceId: number, secret: string, internal = false): Promise<SigningKeyRow | undefined> {
  const [row]: [SigningKeyRow?] = await sql`
    INSERT INTO signing_keys (id, workspace_id, secret, internal) VALUES (${crypto.randomUUID()}, ${workspaceId}, ${secret}, ${internal})
    ON CONFLICT DO NOTHING
    RETURNING ${KEY_COLUMNS(sql)}`;
  return row;
}

export async function internalKey(sql: Db, workspaceId: number): Promise<SigningKeyRow | undefined> {
  const [row]: [SigningKeyRow?] = await sql`SELECT ${KEY_COLUMNS(sql)} FROM signing_keys WHERE workspace_id = ${workspaceId} AND internal`;
  return row;
}

export async function listKeys(sql: Db, workspaceId: number): Promise<SigningKeyRow[]> {
  return [
    ...(await sql<SigningKeyRow[]>`
      SELECT ${KEY_COLUMNS(sql)} FROM signing_keys WHERE workspace_id = ${workspaceId} AND NOT internal AND revoked_at IS NULL ORDER BY created_at, id`),
  ];
}

export async function revokeKey(sql: Db, workspaceId: number, id: string): Promise<boolean> {
  const rows = await sql`
    UPDATE signing_keys SET revoked_at = now() WHERE workspace_id = ${workspaceId} AND id::text = ${id} AND NOT internal AND revoked_at IS NULL RETURNING id`;
  return rows.length > 0;
}

/** Every key still valid, for the in-memory key ring (one read for all workspaces). */
export async function liveKeys(sql: Db): Promise<Pick<SigningKeyRow, "id" | "workspace_id" | "secret">[]> {
  return [...(await sql<SigningKeyRow[]>`SELECT id::text AS id, workspace_id::int AS workspace_id, secret FROM signing_keys WHERE revoked_at IS NULL`)];
}
