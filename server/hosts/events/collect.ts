/**
 * The player's beacons (`POST /v1/collect`): one `events` row per player event
 * (written through `player_events`, which also keeps the analytics slots)
 * (one per watched range for heartbeats), the session and device made known
 * viewers, and the player-driven webhook events written to the outbox.
 *
 * Which player action emits which webhook event:
 * | player event          | outbox event(s)                                   |
 * |-----------------------|---------------------------------------------------|
 * | play, unmute          | `play`; also `video.viewed` on a session's first play |
 * | milestone {percent}   | `play.milestone` {percent} (25, 50, 75, 100), once per session and percent |
 * | cta_click             | `cta.clicked`                                      |
 * | ended                 | `ended`                                            |
 * | lesson_completed      | `lesson.completed` {lesson_video_code}, once per viewer, course and lesson (course_progress) |
 * | playlist_ended        | `playlist.ended`, once per viewer and course       |
 * | lead_form_submitted   | `lead_form.submitted` (with `identity`); `lead.captured` when its raw email makes a new lead |
 * | quiz_answered         | `quiz.answered` {properties: {question_id, choice_id, correct}}; the row's `event` is `question:choice[:correct\|:wrong]` |
 * load, autoplay, pause, seek, watched (heartbeat), startup, rebuffer, error, timed_event and share_click are analytics only.
 * (An unmute is sent only for a muted autoplay, which it turns into a play.)
 *
 * Every row of a session served a split-test variation (on that variation's video)
 * carries `split_test_id` and `split_test_variation_id` (0008_split_tests.sql keeps
 * them per session). The rows that start a view (load, autoplay, play) carry the viewer's device,
 * browser, OS and country, derived here from the request (client.ts; the IP
 * is never stored); a load also carries the page and landing context the player
 * sends. The analytics view keeps them per session for the breakdowns.
 */
import type { Deps } from "../../deps.ts";
import { chTime, type EventRow } from "../../ingest/index.ts";
import { enqueueEvent } from "../../storage/outbox.ts";
import * as viewers from "../../domains/viewers/service.ts";
import * as viewersRepo from "../../domains/viewers/repo.ts";
import { Errors } from "../../errors.ts";
import { clientContext, normaliseHost, type ClientContext } from "./client.ts";
import { IDENTITY_FIELDS } from "./identity.ts";
import { identifyLeads, isLeadSubmission, leadIdentity, recordLead } from "./leads.ts";
import { adoptProgress, courseOf, lastPosition, markCourse, saveResumePosition } from "./course.ts";
import type { CollectBody, PlayerEvent } from "./model.ts";
import type { PlayerEventType } from "../../../contract/events.ts";
import { storedProperties } from "./service.ts";

export const PLAYER_WEBHOOKS: Partial<Record<PlayerEventType, string>> = {
  play: "play",
  unmute: "play",
  milestone: "play.milestone",
  cta_click: "cta.clicked",
  ended: "ended",
  lesson_completed: "lesson.completed",
  playlist_ended: "playlist.ended",
  lead_form_submitted: "lead_form.submitted",
  quiz_answered: "quiz.answered",
};

/** Announced once per viewer and lesson (and course): the mark is the viewer's course progress too. */
const COURSE_MARKS: Partial<Record<PlayerEventType, "lesson" | "playlist">> = { lesson_completed: "lesson", playlist_ended: "playlist" };

const HOUR = 60 * 60_000;

/** Where the batch came from: its User-Agent and IP (the IP only for the country lookup). */
export interface CollectClient {
  userAgent?: string | null;
  ip?: string | null;
}

/** Rows that start a view: they carry the request's client context. */
const VIEW_STARTS = new Set<string>(["load", "autoplay", "play"]);

export async function collect(deps: Deps, body: CollectBody, client: CollectClient = {}): Promise<{ accepted: number; duplicate?: true }> {
  const workspaceId = await viewers.workspaceIdByCode(deps, body.workspace_code);
  const video = workspaceId === undefined ? undefined : await viewers.videoByCode(deps, workspaceId, body.video_code);
  if (workspaceId === undefined || !video) throw Errors.videoNotFound("No such video in this workspace.", { video_code: body.video_code });

  const sessionKey = { sessionCode: body.session_id, deviceId: body.device_id };
  const session = await viewers.touchSession(deps, workspaceId, { ...sessionKey, profileId: body.profile_id, video });
  // A batch sent again (its answer was lost, a beacon at unload, a later page's queue) is written once.
  if (body.seq !== undefined && !(await viewersRepo.claimBatch(deps.sql, workspaceId, body.session_id, body.seq))) return { accepted: 0, duplicate: true };
  try {
    return await write(deps, workspaceId, video, session, body, client);
  } catch (error) {
    if (body.seq !== undefined) await viewersRepo.releaseBatch(deps.sql, workspaceId, body.session_id, body.seq).catch(() => {});
    throw error;
  }
}

async function write(
  deps: Deps,
  workspaceId: number,
  video: { id: number; code: string },
  session: viewersRepo.SessionRow,
  body: CollectBody,
  client: CollectClient,
): Promise<{ accepted: number }> {
  const sessionKey = { sessionCode: body.session_id, deviceId: body.device_id };
  // A lead form's email says who the viewer is: this batch and everything after it attribute to that identity.
  const viewerId = await identifyLeads(deps, workspaceId, { ...sessionKey, viewerId: session.viewer_id }, body.events);
  // A course's progress follows the session to the viewer it now belongs to.
  if (viewerId !== session.viewer_id) await adoptProgress(deps.sql, workspaceId, session.viewer_id, viewerId);
  const now = deps.clock.now();
  const context = body.events.some((e) => VIEW_STARTS.has(e.type)) ? clientContext(client.userAgent, client.ip) : undefined;
  // The split-test variation this session was served, when this is that variation's video.
  const split = viewers.splitStampOf(session, video.id);
  // Every row of the session carries its start, so the seller analytics keep the session as one row.
  const sessionStart = chTime(new Date(session.created_at).getTime());
  const rows: EventRow[] = [];
  for (const e of body.events) rows.push(...toRows(workspaceId, video, viewerId, body, e, now, context, split, sessionStart));
  await deps.ingest.playerEvents.add(rows);
  const position = lastPosition(body.events);
  if (position !== undefined) await saveResumePosition(deps.sql, workspaceId, viewerId, video.id, position);

  // Webhook events only after the rows are safely written; the outbox commits them atomically.
  const webhooks = body.events.filter((e) => PLAYER_WEBHOOKS[e.type]);
  if (webhooks.length) {
    const base = { video: { id: video.id, code: video.code }, session_id: body.session_id, device_id: body.device_id ?? null };
    const courses = await Promise.all(webhooks.map((e) => (COURSE_MARKS[e.type] ? courseOf(deps, workspaceId, video, e) : undefined)));
    // A new lead says how much of the video its viewer watched, this batch's ranges included (written above).
    const watched = webhooks.some(isLeadSubmission) ? await viewers.watchPercent(deps, workspaceId, viewerId, video.id) : 0;
    // The once-per-session marks commit with the outbox rows: an event is announced once, and never lost to a crash in between.
    await deps.sql.begin(async (sql) => {
      if (webhooks.some((e) => PLAYER_WEBHOOKS[e.type] === "play") && (await viewers.markFirstPlay(sql, workspaceId, body.session_id)))
        await enqueueEvent(sql, workspaceId, "video.viewed", base);
      for (const [i, e] of webhooks.entries()) {
        if (e.type === "milestone" && e.percent !== undefined && !(await viewers.markMilestone(sql, workspaceId, body.session_id, e.percent))) continue;
        const course = courses[i];
        if (course && !(await markCourse(sql, workspaceId, viewerId, course.courseId, COURSE_MARKS[e.type]!, course.lesson))) continue;
        const extra: Record<string, unknown> = { video_time: e.video_time ?? null };
        if (e.type === "milestone") extra.percent = e.percent ?? null;
        if (e.type === "lesson_completed") extra.lesson_video_code = course?.lesson ?? null;
        if (e.properties) extra.properties = storedProperties(e.properties);
        const lead = isLeadSubmission(e);
        if (lead) extra.identity = leadIdentity(e);
        await enqueueEvent(sql, workspaceId, PLAYER_WEBHOOKS[e.type]!, { ...base, ...extra });
        if (lead) await recordLead(sql, workspaceId, video, viewerId, e, watched);
      }
    });
  }
  return { accepted: rows.length };
}

const KNOWN = new Set(["type", "t", "video_time", "from_s", "to_s", "ranges", "from", "to", "percent", "ms", "email", "phone", "properties"]);

/** Extra scalar fields of a player event as properties (identity fields never). */
function extraProperties(e: PlayerEvent): Record<string, string> {
  const out = storedProperties(e.properties);
  for (const [key, value] of Object.entries(e)) {
    if (KNOWN.has(key) || key.length > 40 || Object.keys(out).length >= 20) continue;
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") continue;
    if ((IDENTITY_FIELDS as readonly string[]).includes(key)) continue;
    out[key] = String(value).slice(0, 100);
  }
  return out;
}

/**
 * A quiz answer as the `event` of its row, so the events read and the exports
 * (whose columns docs/api.md fixes) show it: `question:choice`, then `:correct` or
 * `:wrong` when the question has a right answer.
 */
function quizAnswer(p: Record<string, string>): string {
  const parts = [p.question_id ?? "", p.choice_id ?? ""];
  if (p.correct === "true" || p.correct === "false") parts.push(p.correct === "true" ? "correct" : "wrong");
  return parts.join(":").slice(0, 200);
}

/** Hosts of a load's page context, as the breakdowns group them. */
const HOST_FIELDS = ["page_host", "referrer_host"] as const;

function toRows(
  workspaceId: number,
  video: { id: number; code: string },
  viewerId: number,
  body: CollectBody,
  e: PlayerEvent,
  now: number,
  context: ClientContext | undefined,
  split: viewers.SplitStamp | undefined,
  sessionStart: string,
): EventRow[] {
  const at = e.t === undefined ? now : Math.min(now, Math.max(now - HOUR, e.t));
  const properties = extraProperties(e);
  // The server's record wins over anything the page sent under these names.
  delete properties.split_test_id;
  delete properties.split_test_variation_id;
  if (split) Object.assign(properties, split);
  if (e.type === "load") for (const key of HOST_FIELDS) if (properties[key] !== undefined) properties[key] = normaliseHost(properties[key]);
  // The server's own reading of the request wins over anything the page sent under these names.
  if (context && VIEW_STARTS.has(e.type)) {
    for (const key of ["device", "browser", "os", "country"] as const) {
      if (context[key]) properties[key] = context[key];
      else delete properties[key];
    }
  }
  if (e.type === "milestone" && e.percent !== undefined) properties.percent = String(e.percent);
  if (e.type === "seek" && e.from !== undefined) properties.from_s = String(e.from);
  const base: EventRow = {
    workspace_id: workspaceId,
    video_id: video.id,
    video_code: video.code,
    event_type: e.type,
    event: e.type === "quiz_answered" ? quizAnswer(properties) : "",
    event_id: "",
    session_code: body.session_id,
    device_id: body.device_id ?? "",
    watch_seconds: 0,
    video_time: e.type === "seek" && e.to !== undefined ? e.to : (e.video_time ?? 0),
    value: e.type === "startup" || e.type === "rebuffer" ? (e.ms ?? null) : null,
    properties,
    created_at: chTime(at),
    viewer_id: viewerId,
    session_start: sessionStart,
  };
  const ranges =
    e.type === "watched"
      ? e.from_s !== undefined && e.to_s !== undefined
        ? [{ from_s: e.from_s, to_s: e.to_s }]
        : []
      : e.type === "heartbeat"
        ? (e.ranges ?? [])
        : undefined;
  if (!ranges) return [base];
  // One `watched` row per range: video_time = from_s, watch_seconds = to_s - from_s, so retention counts coverage, not wall time.
  return ranges
    .filter((r) => r.to_s > r.from_s)
    .map((r) => ({
      ...base,
      event_type: "watched",
      video_time: r.from_s,
      watch_seconds: r.to_s - r.from_s,
      properties: { ...properties, from_s: String(r.from_s), to_s: String(r.to_s) },
    }));
}
