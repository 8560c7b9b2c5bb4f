/** SQL of known viewers: sessions, keys (device, profile, identity hashes), workspaces and videos by code. */
import type { Db, Sql } from "../../storage/postgres.ts";

export interface SessionRow {
  viewer_id: number;
  device_id: string | null;
  video_id: number | null;
  video_code: string | null;
  /** The split-test variation the session was served while its test ran, and that variation's video (0011_split_tests.sql). */
  split_test_id: number | null;
  split_test_variation_id: number | null;
  split_test_video_id: number | null;
  /** When the events host first saw the session code (the analytics' session start). */
  created_at: Date;
}

const SESSION_COLUMNS = "viewer_id, device_id, video_id, video_code, split_test_id, split_test_variation_id, split_test_video_id, created_at";

/** A session's split-test variation: set (the viewer was served it), cleared (null), or left as it is (undefined). */
export interface SplitAssignment {
  testId: number;
  variationId: number;
  videoId: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findWorkspaceIdByCode(sql: Sql, code: string): Promise<number | undefined> {
  if (!UUID.test(code)) return undefined;
  const [row]: [{ id: number }?] = await sql`SELECT id FROM workspaces WHERE code = ${code}`;
  return row?.id;
}

export async function findVideoByCode(sql: Sql, workspaceId: number, code: string): Promise<{ id: number; code: string } | undefined> {
  if (!UUID.test(code)) return undefined;
  const [row]: [{ id: number; code: string }?] = await sql`SELECT id, code FROM videos WHERE workspace_id = ${workspaceId} AND code = ${code}`;
  return row;
}

export async function findSession(sql: Sql, workspaceId: number, sessionCode: string): Promise<SessionRow | undefined> {
  const [row]: [SessionRow?] = await sql`
    SELECT ${sql.unsafe(SESSION_COLUMNS)} FROM viewer_sessions
    WHERE workspace_id = ${workspaceId} AND session_code = ${sessionCode}`;
  return row;
}

export async function findKey(sql: Sql, workspaceId: number, kind: string, key: string): Promise<number | undefined> {
  const [row]: [{ viewer_id: number }?] = await sql`
    SELECT viewer_id FROM viewer_keys WHERE workspace_id = ${workspaceId} AND kind = ${kind} AND key = ${key}`;
  return row?.viewer_id;
}

/**
 * Creates the session (and its viewer, unless the device already has one) or
 * moves it to the video now playing; `split` sets or clears its split-test
 * variation (undefined leaves it). Returns the session as stored.
 */
export async function upsertSession(
  sql: Sql,
  workspaceId: number,
  s: { sessionCode: string; deviceId: string | null; videoId: number | null; videoCode: string | null; split?: SplitAssignment | null; now: Date },
): Promise<SessionRow> {
  const setSplit = s.split !== undefined;
  const split = { test: s.split?.testId ?? null, variation: s.split?.variationId ?? null, video: s.split?.videoId ?? null };
  return sql.begin(async (tx) => {
    // The video joins the session's list of videos played (0019_session_videos.sql), kept when the session moves on.
    if (s.videoId !== null)
      await tx`INSERT INTO session_videos (workspace_id, video_id, session_code, created_at) VALUES (${workspaceId}, ${s.videoId}, ${s.sessionCode}, ${s.now})
        ON CONFLICT DO NOTHING`;
    const [existing]: [SessionRow?] = await tx`
      UPDATE viewer_sessions SET video_id = COALESCE(${s.videoId}, video_id), video_code = COALESCE(${s.videoCode}, video_code),
        device_id = COALESCE(device_id, ${s.deviceId}),
        split_test_id = CASE WHEN ${setSplit} THEN ${split.test}::bigint ELSE split_test_id END,
        split_test_variation_id = CASE WHEN ${setSplit} THEN ${split.variation}::bigint ELSE split_test_variation_id END,
        split_test_video_id = CASE WHEN ${setSplit} THEN ${split.video}::bigint ELSE split_test_video_id END,
        updated_at = now()
      WHERE workspace_id = ${workspaceId} AND session_code = ${s.sessionCode} RETURNING ${tx.unsafe(SESSION_COLUMNS)}`;
    if (existing) return existing;
    let viewerId: number | undefined;
    if (s.deviceId) {
      const [device]: [{ viewer_id: number }?] = await tx`
        SELECT viewer_id FROM viewer_keys WHERE workspace_id = ${workspaceId} AND kind = 'device' AND key = ${s.deviceId}`;
      viewerId = device?.viewer_id;
    }
    if (viewerId === undefined) {
      const [viewer]: [{ id: number }?] = await tx`INSERT INTO viewers (workspace_id) VALUES (${workspaceId}) RETURNING id`;
      viewerId = viewer!.id;
    }
    const [row]: [SessionRow?] = await tx`
      INSERT INTO viewer_sessions (workspace_id, session_code, viewer_id, device_id, video_id, video_code, split_test_id, split_test_variation_id, split_test_video_id, created_at)
      VALUES (${workspaceId}, ${s.sessionCode}, ${viewerId}, ${s.deviceId}, ${s.videoId}, ${s.videoCode}, ${split.test}, ${split.variation}, ${split.video}, ${s.now})
      ON CONFLICT (workspace_id, session_code) DO UPDATE SET updated_at = now()
      RETURNING ${tx.unsafe(SESSION_COLUMNS)}`;
    return row!;
  });
}

/** Links keys to a viewer; a key already linked keeps its first viewer. */
export async function linkKeys(sql: Sql, workspaceId: number, viewerId: number, keys: { kind: string; key: string }[]): Promise<void> {
  if (keys.length === 0) return;
  const rows = keys.map((k) => ({ workspace_id: workspaceId, kind: k.kind, key: k.key, viewer_id: viewerId }));
  await sql`INSERT INTO viewer_keys ${sql(rows, "workspace_id", "kind", "key", "viewer_id")} ON CONFLICT DO NOTHING`;
}

/** True exactly once per session: the first play (docs/api.md `video.viewed`). */
export async function markFirstPlay(sql: Db, workspaceId: number, sessionCode: string): Promise<boolean> {
  const rows = await sql`
    UPDATE viewer_sessions SET first_play_at = now()
    WHERE workspace_id = ${workspaceId} AND session_code = ${sessionCode} AND first_play_at IS NULL RETURNING viewer_id`;
  return rows.length > 0;
}

/** Records that the session announced this milestone (a bit of `milestones_sent`); true only the first time. */
export async function markMilestone(sql: Db, workspaceId: number, sessionCode: string, bit: number): Promise<boolean> {
  const rows = await sql`
    UPDATE viewer_sessions SET milestones_sent = milestones_sent | ${bit}
    WHERE workspace_id = ${workspaceId} AND session_code = ${sessionCode} AND milestones_sent & ${bit} = 0 RETURNING viewer_id`;
  return rows.length > 0;
}

/**
 * Moves a session, and its device, onto another viewer (the identity an email
 * resolved to), so its later events and sales attribute to that viewer.
 */
export async function moveSession(sql: Sql, workspaceId: number, sessionCode: string, deviceId: string | null, viewerId: number): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`UPDATE viewer_sessions SET viewer_id = ${viewerId}, updated_at = now() WHERE workspace_id = ${workspaceId} AND session_code = ${sessionCode}`;
    if (deviceId) await tx`UPDATE viewer_keys SET viewer_id = ${viewerId} WHERE workspace_id = ${workspaceId} AND kind = 'device' AND key = ${deviceId}`;
  });
}

/** How far below the highest batch number a session remembers each number it took. */
export const SEQ_WINDOW = 63;

/**
 * Takes a player batch's number for its session: true when the batch is new (and now
 * marked), false when a batch with that number was already taken. A number further
 * below the highest than the window is taken as new: a rare duplicate then, never a loss.
 */
export async function claimBatch(sql: Db, workspaceId: number, sessionCode: string, seq: number): Promise<boolean> {
  const rows = await sql`
    UPDATE viewer_sessions SET
      collect_seen = CASE
        WHEN ${seq} > collect_seq THEN CASE WHEN ${seq} - collect_seq > ${SEQ_WINDOW} THEN 1 ELSE (collect_seen << (${seq} - collect_seq)::int) | 1 END
        WHEN collect_seq - ${seq} > ${SEQ_WINDOW} THEN collect_seen
        ELSE collect_seen | (1::bigint << (collect_seq - ${seq})::int)
      END,
      collect_seq = GREATEST(collect_seq, ${seq})
    WHERE workspace_id = ${workspaceId} AND session_code = ${sessionCode}
      AND (${seq} > collect_seq OR collect_seq - ${seq} > ${SEQ_WINDOW} OR collect_seen & (1::bigint << (collect_seq - ${seq})::int) = 0)
    RETURNING 1`;
  return rows.length > 0;
}

/** Gives a batch's number back when its rows could not be written, so its retry is taken. */
export async function releaseBatch(sql: Db, workspaceId: number, sessionCode: string, seq: number): Promise<void> {
  await sql`
    UPDATE viewer_sessions SET collect_seen = collect_seen & ~(1::bigint << (collect_seq - ${seq})::int)
    WHERE workspace_id = ${workspaceId} AND session_code = ${sessionCode} AND collect_seq - ${seq} BETWEEN 0 AND ${SEQ_WINDOW}`;
}

/** What ties a viewer to their events: the codes of their sessions, their devices and every key of theirs. Undefined when no such viewer is in this workspace. */
export async function viewerFootprint(
  sql: Sql,
  workspaceId: number,
  viewerId: number,
): Promise<{ sessionCodes: string[]; deviceIds: string[]; keys: { kind: string; key: string }[] } | undefined> {
  const [viewer]: [{ id: number }?] = await sql`SELECT id FROM viewers WHERE workspace_id = ${workspaceId} AND id = ${viewerId}`;
  if (!viewer) return undefined;
  const sessions = await sql<{ session_code: string; device_id: string | null }[]>`
    SELECT session_code, device_id FROM viewer_sessions WHERE workspace_id = ${workspaceId} AND viewer_id = ${viewerId}`;
  const keys = await sql<{ kind: string; key: string }[]>`SELECT kind, key FROM viewer_keys WHERE workspace_id = ${workspaceId} AND viewer_id = ${viewerId}`;
  const deviceIds = new Set([...keys.filter((k) => k.kind === "device").map((k) => k.key), ...sessions.flatMap((s) => (s.device_id ? [s.device_id] : []))]);
  return { sessionCodes: sessions.map((s) => s.session_code), deviceIds: [...deviceIds], keys: [...keys] };
}

/**
 * Erases a viewer from PostgreSQL in one transaction: their leads and lead-form
 * answers (the raw email), their sessions, keys (devices, profiles, identity hashes,
 * external ids), course progress and resume positions. Their sales stay in the
 * ledger as the seller's records, with everything that named the buyer removed.
 */
export async function eraseViewer(sql: Sql, workspaceId: number, viewerId: number, sessionCodes: string[]): Promise<void> {
  await sql.begin(async (tx) => {
    const emails = (
      await tx<{ key: string }[]>`
        SELECT key FROM viewer_keys WHERE workspace_id = ${workspaceId} AND viewer_id = ${viewerId} AND kind = 'email_sha256'`
    ).map((k) => k.key);
    const codes = sessionCodes.length ? sessionCodes : [""];
    const hashes = emails.length ? emails : [""];
    await tx`DELETE FROM lead_submissions WHERE workspace_id = ${workspaceId} AND (viewer_id = ${viewerId} OR email_sha256 IN ${tx(hashes)})`;
    await tx`DELETE FROM leads WHERE workspace_id = ${workspaceId} AND (viewer_id = ${viewerId} OR email_sha256 IN ${tx(hashes)})`;
    await tx`
      UPDATE conversions SET session_code = NULL, device_id = NULL, viewer_id = NULL, customer_email_sha256 = NULL, customer_phone_sha256 = NULL,
        customer_name = NULL, data = '{}'::jsonb, updated_at = now()
      WHERE workspace_id = ${workspaceId} AND (viewer_id = ${viewerId} OR session_code IN ${tx(codes)} OR customer_email_sha256 IN ${tx(hashes)})`;
    await tx`DELETE FROM session_videos WHERE workspace_id = ${workspaceId} AND session_code IN ${tx(codes)}`;
    // Sessions, keys, course progress and resume positions go with the viewer (ON DELETE CASCADE).
    await tx`DELETE FROM viewers WHERE workspace_id = ${workspaceId} AND id = ${viewerId}`;
  });
}

/** A day window as the SQL reads it: local times in `tz` (http/window.ts). */
export interface Bounds {
  start: string;
  end: string;
  tz: string;
}

export interface VideoSessionRow {
  viewer_id: number;
  session_code: string;
  started_at: Date;
}

/** The sessions of these viewers that played this video, oldest first; `w` keeps those that began in the window. */
export async function sessionsOf(sql: Db, workspaceId: number, videoId: number, viewerIds: number[], w?: Bounds): Promise<VideoSessionRow[]> {
  if (viewerIds.length === 0) return [];
  const window = w
    ? sql`AND sv.created_at >= (${w.start}::timestamp AT TIME ZONE ${w.tz}) AND sv.created_at < (${w.end}::timestamp AT TIME ZONE ${w.tz})`
    : sql``;
  return sql<VideoSessionRow[]>`
    SELECT s.viewer_id, s.session_code, sv.created_at AS started_at
    FROM viewer_sessions s
    JOIN session_videos sv ON sv.workspace_id = s.workspace_id AND sv.session_code = s.session_code AND sv.video_id = ${videoId}
    WHERE s.workspace_id = ${workspaceId} AND s.viewer_id IN ${sql(viewerIds)} ${window}
    ORDER BY sv.created_at, s.session_code`;
}
