/** The PostgreSQL side of the per-viewer reads: a page of a video's viewers, who they are, their sales. */
import type { Db } from "../../storage/postgres.ts";
import type { Bounds } from "../../domains/viewers/repo.ts";

export interface ViewerPageRow {
  viewer_id: number;
  sessions: number;
  first_seen_at: Date;
  last_seen_at: Date;
  total: number;
}

/** Key kinds that say who a viewer is (a lead's email, an `identify`'s external id). */
const IDENTIFYING = ["email_sha256", "external_id"];

/**
 * A page of the viewers whose sessions played this video and began in the window, the
 * most recently seen first, with the count of all such viewers on every row.
 */
export async function listViewers(
  sql: Db,
  workspaceId: number,
  videoId: number,
  w: Bounds,
  identifiedOnly: boolean,
  limit: number,
  offset: number,
): Promise<ViewerPageRow[]> {
  return sql<ViewerPageRow[]>`
    SELECT s.viewer_id, count(*)::int AS sessions, min(sv.created_at) AS first_seen_at, max(sv.created_at) AS last_seen_at,
      (count(*) OVER ())::int AS total
    FROM session_videos sv
    JOIN viewer_sessions s ON s.workspace_id = sv.workspace_id AND s.session_code = sv.session_code
    WHERE sv.workspace_id = ${workspaceId} AND sv.video_id = ${videoId}
      AND sv.created_at >= (${w.start}::timestamp AT TIME ZONE ${w.tz}) AND sv.created_at < (${w.end}::timestamp AT TIME ZONE ${w.tz})
      AND (NOT ${identifiedOnly} OR EXISTS (
        SELECT 1 FROM viewer_keys k WHERE k.workspace_id = s.workspace_id AND k.viewer_id = s.viewer_id AND k.kind IN ${sql(IDENTIFYING)}))
    GROUP BY s.viewer_id
    ORDER BY max(sv.created_at) DESC, s.viewer_id DESC
    LIMIT ${limit} OFFSET ${offset}`;
}

export interface IdentityRow {
  viewer_id: number;
  email: string | null;
  external_id: string | null;
  identified: boolean;
}

/** Who each viewer is: the email of their latest lead, their external id, and whether any identifying key is theirs. */
export async function identitiesOf(sql: Db, workspaceId: number, viewerIds: number[]): Promise<IdentityRow[]> {
  if (viewerIds.length === 0) return [];
  return sql<IdentityRow[]>`
    SELECT v.id AS viewer_id,
      (SELECT l.email FROM leads l WHERE l.workspace_id = v.workspace_id AND l.viewer_id = v.id ORDER BY l.updated_at DESC, l.id DESC LIMIT 1) AS email,
      (SELECT k.key FROM viewer_keys k WHERE k.workspace_id = v.workspace_id AND k.viewer_id = v.id AND k.kind = 'external_id'
        ORDER BY k.created_at LIMIT 1) AS external_id,
      EXISTS (SELECT 1 FROM viewer_keys k WHERE k.workspace_id = v.workspace_id AND k.viewer_id = v.id AND k.kind IN ${sql(IDENTIFYING)}) AS identified
    FROM viewers v WHERE v.workspace_id = ${workspaceId} AND v.id IN ${sql(viewerIds)}`;
}

export interface SaleRow {
  session_code: string;
  occurred_at: Date;
  value: string | null;
  currency: string | null;
  product_name: string | null;
}

/** Verified, non-test sales of this video made in these sessions. */
export async function salesOf(sql: Db, workspaceId: number, videoId: number, sessionCodes: string[]): Promise<SaleRow[]> {
  if (sessionCodes.length === 0) return [];
  return sql<SaleRow[]>`
    SELECT session_code, occurred_at, value::text AS value, currency, product_name FROM conversions
    WHERE workspace_id = ${workspaceId} AND video_id = ${videoId} AND session_code IN ${sql(sessionCodes)} AND verified AND NOT is_test
    ORDER BY occurred_at, id`;
}
