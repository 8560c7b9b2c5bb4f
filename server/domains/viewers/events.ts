/**
 * A viewer's rows in ClickHouse: the events of a few sessions of one video (the
 * per-viewer reads, the watch percent of a lead), and their erasure. Read from `events` (0001_events.sql). The primary key (workspace, video, time)
 * and the sessions' start bound what is read: a session's rows are never older than
 * an hour before it began (the events host clamps the time a page reports).
 */
import type { Ch } from "../../storage/clickhouse.ts";
import { LOCAL_SUFFIX } from "../../storage/clickhouse-ddl.ts";

export interface ChSql {
  query: string;
  query_params: Record<string, unknown>;
}

async function rows<T>(ch: Ch, sql: ChSql): Promise<T[]> {
  return (await ch.query({ ...sql, format: "JSONEachRow" })).json<T>();
}

/** How much earlier than its session's start a row may be dated (server/hosts/events/collect.ts). */
const CLAMP_MS = 60 * 60_000;

export interface Sessions {
  workspaceId: number;
  videoId: number;
  codes: string[];
  /** The earliest start among the sessions. */
  since: Date;
}

/** The sessions' scope: their codes, from the earliest start among them. */
export const sessionsScope = (workspaceId: number, videoId: number, sessions: { session_code: string; started_at: Date }[]): Sessions => ({
  workspaceId,
  videoId,
  codes: sessions.map((s) => s.session_code),
  since: new Date(Math.min(...sessions.map((s) => s.started_at.getTime()))),
});

const WHERE = `workspace_id = {ws:UInt64} AND video_id = {video:UInt64} AND session_code IN {codes:Array(String)}
  AND created_at >= fromUnixTimestamp64Milli({since:Int64})`;

const params = (s: Sessions) => ({ ws: s.workspaceId, video: s.videoId, codes: s.codes, since: s.since.getTime() - CLAMP_MS });

export interface SessionFacts {
  session_code: string;
  watch_s: number;
  furthest_s: number;
  duration_s: number;
  plays: number;
  leads: number;
}

/** Per session: watch time (ranges summed), the furthest point reached, the video's duration, plays and lead forms answered. */
export function factsSql(s: Sessions): ChSql {
  return {
    query: `
SELECT session_code,
  sumIf(watch_seconds, event_type = 'watched') AS watch_s,
  maxIf(video_time + watch_seconds, event_type = 'watched') AS furthest_s,
  maxIf(toFloat64OrZero(properties['duration_s']), event_type = 'watched') AS duration_s,
  countIf(event_type IN ('play', 'unmute')) AS plays,
  countIf(event_type = 'lead_form_submitted') AS leads
FROM events WHERE ${WHERE}
GROUP BY session_code`,
    query_params: params(s),
  };
}

export async function sessionFacts(ch: Ch, s: Sessions): Promise<SessionFacts[]> {
  return s.codes.length === 0 ? [] : rows<SessionFacts>(ch, factsSql(s));
}

/** The player events a timeline shows, and the ones that carry where a session came from. */
export const TIMELINE_TYPES = ["load", "play", "unmute", "autoplay", "pause", "seek", "ended", "watched", "cta_click", "quiz_answered", "lead_form_submitted"];

export interface TimelineRow {
  session_code: string;
  event_type: string;
  event: string;
  video_time: number;
  watch_seconds: number;
  properties: Record<string, string>;
  at_ms: number;
}

/** The sessions' events, oldest first. */
export function timelineSql(s: Sessions): ChSql {
  return {
    query: `
SELECT session_code, event_type, event, video_time, watch_seconds, properties, toUnixTimestamp64Milli(created_at) AS at_ms
FROM events WHERE ${WHERE} AND event_type IN {types:Array(String)}
ORDER BY created_at, video_time`,
    query_params: { ...params(s), types: TIMELINE_TYPES },
  };
}

/** The same facts as `sessionFacts`, from a timeline's rows (one query fewer for one viewer's reads). */
export function factsFromRows(rows: TimelineRow[]): SessionFacts[] {
  const by = new Map<string, SessionFacts>();
  for (const r of rows) {
    let f = by.get(r.session_code);
    if (!f) by.set(r.session_code, (f = { session_code: r.session_code, watch_s: 0, furthest_s: 0, duration_s: 0, plays: 0, leads: 0 }));
    if (r.event_type === "watched") {
      f.watch_s += Number(r.watch_seconds);
      f.furthest_s = Math.max(f.furthest_s, Number(r.video_time) + Number(r.watch_seconds));
      f.duration_s = Math.max(f.duration_s, Number(r.properties.duration_s ?? 0) || 0);
    } else if (r.event_type === "play" || r.event_type === "unmute") f.plays += 1;
    else if (r.event_type === "lead_form_submitted") f.leads += 1;
  }
  return [...by.values()];
}

export async function timelineRows(ch: Ch, s: Sessions): Promise<TimelineRow[]> {
  return s.codes.length === 0 ? [] : rows<TimelineRow>(ch, timelineSql(s));
}

/** The tables that hold a session's rows: every event, and the per-session rows the materialized views keep from them (its funnel steps too). */
const BY_EVENT = "events";
const BY_SESSION_HASH = ["analytics_session_slots", "analytics_sessions", "funnel_steps"];

/**
 * Deletes every ClickHouse row of a viewer: events of their sessions, devices or
 * viewer id, and the per-session rows made from them. Lightweight deletes: the rows
 * leave every read at once. On a cluster each shard deletes from its local table.
 * Safe to run again. Sales keep their row in `analytics_sales` (an amount and a
 * session hash, nothing that names the buyer).
 */
export async function eraseViewerRows(
  ch: Ch,
  cluster: string | undefined,
  v: { workspaceId: number; viewerId: number; sessionCodes: string[]; deviceIds: string[] },
): Promise<void> {
  const table = (name: string) => (cluster ? `${name}${LOCAL_SUFFIX} ON CLUSTER '${cluster}'` : name);
  const query_params = { ws: v.workspaceId, viewer: v.viewerId, codes: v.sessionCodes, devices: v.deviceIds };
  await ch.command({
    query: `DELETE FROM ${table(BY_EVENT)} WHERE workspace_id = {ws:UInt64}
      AND (viewer_id = {viewer:UInt64} OR session_code IN {codes:Array(String)} OR (device_id != '' AND device_id IN {devices:Array(String)}))`,
    query_params,
  });
  if (v.sessionCodes.length === 0) return;
  for (const name of BY_SESSION_HASH)
    await ch.command({
      query: `DELETE FROM ${table(name)} WHERE workspace_id = {ws:UInt64} AND session_hash IN (SELECT cityHash64(arrayJoin({codes:Array(String)})))`,
      query_params,
    });
}
