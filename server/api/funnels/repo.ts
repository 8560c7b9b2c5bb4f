/**
 * The SQL of the funnel report: the steps sessions took (`funnel_steps`,
 * 0014_funnel_steps.sql), what each session did on each video (the per-session slot
 * rows of `analytics_session_slots`) and its sales (`analytics_sales`), plus the
 * videos a report names. Every value travels in `query_params`.
 */
import type { Ch } from "../../storage/clickhouse.ts";
import type { Db } from "../../storage/postgres.ts";
import type { Settings } from "../../../contract/settings.ts";

/** The report's window and entry: bounds as storage/http/window.ts gives them. */
export interface Scope {
  workspaceId: number;
  entryId: number;
  start: string;
  end: string;
  tz: string;
}

const params = (s: Scope) => ({ ws: s.workspaceId, entry: s.entryId, start: s.start, end: s.end, tz: s.tz });

async function rows<T>(ch: Ch, query: string, query_params: Record<string, unknown>): Promise<T[]> {
  return (await ch.query({ query, query_params, format: "JSONEachRow" })).json<T>();
}

const IN_WINDOW = "created_at >= toDateTime64({start:String}, 3, {tz:String}) AND created_at < toDateTime64({end:String}, 3, {tz:String})";
/** A path goes on after the window's last day ends (a session that began just before midnight): one day more. */
const AFTER_START = "created_at >= toDateTime64({start:String}, 3, {tz:String}) AND created_at < toDateTime64({end:String}, 3, {tz:String}) + INTERVAL 1 DAY";
/** The sessions that took a step from the entry video in the window. */
const STEPPED = `SELECT session_hash FROM funnel_steps WHERE workspace_id = {ws:UInt64} AND video_id = {entry:UInt64} AND ${IN_WINDOW}`;

/** A session's facts on one video, merged from its slot rows. */
const FACTS = `
  SELECT video_id, toString(session_hash) AS session_hash, max(played) AS played, max(completed) AS completed, max(lead) AS lead,
    toString(max(device_hash)) AS device
  FROM analytics_session_slots`;

export interface FactRow {
  video_id: number;
  session_hash: string;
  played: number;
  completed: number;
  lead: number;
  device: string;
}

/** Every session of the entry video with a slot in the window, with its facts there. */
export function entrySessions(ch: Ch, s: Scope): Promise<FactRow[]> {
  return rows<FactRow>(
    ch,
    `${FACTS}
  WHERE workspace_id = {ws:UInt64} AND video_id = {entry:UInt64}
    AND slot >= toDateTime({start:String}, {tz:String}) AND slot < toDateTime({end:String}, {tz:String})
  GROUP BY video_id, session_hash`,
    params(s),
  );
}

export interface StepDbRow {
  video_id: number;
  session_hash: string;
  choice: string;
  next_video_code: string;
}

/** Every step of the sessions that took one from the entry video, by session, in time order. */
export function stepsOf(ch: Ch, s: Scope): Promise<StepDbRow[]> {
  return rows<StepDbRow>(
    ch,
    `SELECT video_id, toString(session_hash) AS session_hash, choice, next_video_code
  FROM funnel_steps
  WHERE workspace_id = {ws:UInt64} AND ${AFTER_START} AND session_hash IN (${STEPPED})
  ORDER BY session_hash, created_at`,
    params(s),
  );
}

/** The facts of the stepping sessions on the videos their steps led to. */
export function stepFacts(ch: Ch, s: Scope, videoIds: number[]): Promise<FactRow[]> {
  if (!videoIds.length) return Promise.resolve([]);
  return rows<FactRow>(
    ch,
    `${FACTS}
  WHERE workspace_id = {ws:UInt64} AND video_id IN {videos:Array(UInt64)}
    AND slot >= toStartOfFifteenMinutes(toDateTime({start:String}, {tz:String}))
    AND slot < toDateTime({end:String}, {tz:String}) + INTERVAL 1 DAY
    AND session_hash IN (${STEPPED})
  GROUP BY video_id, session_hash`,
    { ...params(s), videos: videoIds },
  );
}

export interface SaleDbRow {
  video_id: number;
  session_hash: string;
  currency: string;
  amount: number;
}

/**
 * The verified, non-test sales of the report's videos made in the window (and the day
 * after) by a session, per video, session and currency: rows of one sale merge, the
 * verified one winning (as the seller overview reads them).
 */
export function salesOf(ch: Ch, s: Scope, videoIds: number[]): Promise<SaleDbRow[]> {
  return rows<SaleDbRow>(
    ch,
    `SELECT video_id, toString(sale_hash) AS session_hash, sale_currency AS currency, sum(amount) AS amount
  FROM (
    SELECT video_id, sale_key, max(verified) AS is_verified, argMax(test, verified) AS is_test, maxIf(amount, verified) AS amount,
      argMax(session_hash, verified) AS sale_hash, argMax(currency, verified) AS sale_currency
    FROM analytics_sales
    WHERE workspace_id = {ws:UInt64} AND video_id IN {videos:Array(UInt64)} AND ${AFTER_START}
    GROUP BY video_id, sale_key)
  WHERE is_verified AND NOT is_test AND sale_hash != 0
  GROUP BY video_id, session_hash, currency`,
    { ...params(s), videos: videoIds },
  );
}

export interface FunnelVideoRow {
  id: number;
  code: string;
  title: string;
  settings: Partial<Settings>;
}

/** The videos of this workspace among `codes` (UUID-shaped) or `ids`: what a report names. */
export async function videosOf(sql: Db, workspaceId: number, ids: number[], codes: string[]): Promise<FunnelVideoRow[]> {
  return sql<FunnelVideoRow[]>`
    SELECT id, code::text AS code, title, settings FROM videos
    WHERE workspace_id = ${workspaceId} AND (id = ANY(${sql.array(ids)}::bigint[]) OR code = ANY(${sql.array(codes)}::uuid[]))`;
}
