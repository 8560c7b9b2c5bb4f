/**
 * Courses and resume on any device, on the events host: which lessons of a
 * course (a playlist's container video) a viewer completed, the once-per-viewer
 * marks of `lesson.completed` and `playlist.ended`, and the last position of an
 * identified viewer (0012_course_progress.sql). The player asks through
 * `GET /v1/course-progress` and `GET /v1/resume-position`, which answer
 * lesson codes and a position only, never who the viewer is.
 */
import type { Deps } from "../../deps.ts";
import type { Db, Sql } from "../../storage/postgres.ts";
import * as viewers from "../../domains/viewers/service.ts";
import type { PlayerEvent } from "./model.ts";

export type CourseMark = "lesson" | "playlist";

/** The course and lesson a `lesson_completed` or `playlist_ended` names (the container's code travels as `container_video_code`). */
export async function courseOf(
  deps: Deps,
  workspaceId: number,
  batchVideo: { id: number; code: string },
  e: PlayerEvent,
): Promise<{ courseId: number; lesson: string }> {
  const container = typeof e.container_video_code === "string" && e.container_video_code !== batchVideo.code ? e.container_video_code : undefined;
  const course = container ? await viewers.videoByCode(deps, workspaceId, container.slice(0, 100)) : undefined;
  const lesson = e.type === "playlist_ended" ? "" : typeof e.video_code === "string" && e.video_code ? e.video_code.slice(0, 100) : batchVideo.code;
  return { courseId: course?.id ?? batchVideo.id, lesson };
}

/** Records the mark; true the first time for this viewer (the webhook is then announced). */
export async function markCourse(tx: Db, workspaceId: number, viewerId: number, courseId: number, kind: CourseMark, lesson: string): Promise<boolean> {
  const rows = await tx`
    INSERT INTO course_progress (workspace_id, viewer_id, course_video_id, kind, lesson_code)
    VALUES (${workspaceId}, ${viewerId}, ${courseId}, ${kind}, ${lesson})
    ON CONFLICT DO NOTHING RETURNING 1`;
  return rows.length > 0;
}

/** A session that became a known viewer brings the progress it made before. */
export async function adoptProgress(sql: Sql, workspaceId: number, fromViewer: number, toViewer: number): Promise<void> {
  if (fromViewer === toViewer) return;
  await sql`
    INSERT INTO course_progress (workspace_id, viewer_id, course_video_id, kind, lesson_code, completed_at)
    SELECT workspace_id, ${toViewer}, course_video_id, kind, lesson_code, completed_at FROM course_progress
    WHERE workspace_id = ${workspaceId} AND viewer_id = ${fromViewer}
    ON CONFLICT DO NOTHING`;
}

/** Where the batch leaves the viewer: the last position it reports (0 after an end: start over), or undefined. */
export function lastPosition(events: PlayerEvent[]): number | undefined {
  let at: number | undefined;
  for (const e of events) {
    if (e.type === "ended") at = 0;
    else if (e.type === "watched" && e.to_s !== undefined) at = e.to_s;
    else if (e.type === "heartbeat" && e.ranges?.length) at = e.ranges[e.ranges.length - 1]!.to_s;
    else if (e.type === "seek" && e.to !== undefined) at = e.to;
    else if ((e.type === "pause" || e.type === "milestone") && e.video_time !== undefined) at = e.video_time;
  }
  return at;
}

/** Keeps the position of an identified viewer, one with a key beyond its device and profile (an anonymous one's stays on its device). */
export async function saveResumePosition(sql: Sql, workspaceId: number, viewerId: number, videoId: number, position: number): Promise<void> {
  await sql`
    INSERT INTO resume_positions (workspace_id, viewer_id, video_id, position_s, updated_at)
    SELECT ${workspaceId}, ${viewerId}, ${videoId}, ${position}, now()
    WHERE EXISTS (SELECT 1 FROM viewer_keys WHERE workspace_id = ${workspaceId} AND viewer_id = ${viewerId} AND kind NOT IN ('device', 'profile'))
    ON CONFLICT (workspace_id, viewer_id, video_id) DO UPDATE SET position_s = EXCLUDED.position_s, updated_at = EXCLUDED.updated_at`;
}

export interface ViewerQuery {
  workspace_code: string;
  video_code: string;
  session_id?: string;
  device_id?: string;
}

async function viewerOf(deps: Deps, q: ViewerQuery): Promise<{ workspaceId: number; videoId: number; viewerId: number } | undefined> {
  const workspaceId = await viewers.workspaceIdByCode(deps, q.workspace_code);
  const video = workspaceId === undefined ? undefined : await viewers.videoByCode(deps, workspaceId, q.video_code);
  if (workspaceId === undefined || !video) return undefined;
  const viewer = await viewers.resolveViewer(deps, workspaceId, { sessionId: q.session_id, deviceId: q.device_id, identity: [] });
  return viewer && { workspaceId, videoId: video.id, viewerId: viewer.viewerId };
}

/** The lesson codes of this course the viewer of this session (else device) completed; unknown codes answer none. */
export async function courseProgress(deps: Deps, q: ViewerQuery): Promise<{ completed: string[]; ended: boolean }> {
  const v = await viewerOf(deps, q);
  if (!v) return { completed: [], ended: false };
  const rows = await deps.sql<{ kind: string; lesson_code: string }[]>`
    SELECT kind, lesson_code FROM course_progress
    WHERE workspace_id = ${v.workspaceId} AND viewer_id = ${v.viewerId} AND course_video_id = ${v.videoId}
    ORDER BY completed_at, lesson_code`;
  return { completed: rows.filter((r) => r.kind === "lesson").map((r) => r.lesson_code), ended: rows.some((r) => r.kind === "playlist") };
}

/** The identified viewer's last position in this video, seconds; null when none (or after the end). */
export async function resumePosition(deps: Deps, q: ViewerQuery): Promise<number | null> {
  const v = await viewerOf(deps, q);
  if (!v) return null;
  const [row] = await deps.sql<{ position_s: number }[]>`
    SELECT position_s FROM resume_positions WHERE workspace_id = ${v.workspaceId} AND viewer_id = ${v.viewerId} AND video_id = ${v.videoId}`;
  return row && row.position_s >= 1 ? Math.floor(row.position_s) : null;
}
