/** The rules of docs/api.md "Analytics reads"; knows nothing of HTTP. */
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import { intParam, oneOfParam } from "../../http/params.ts";
import { resolveWindow, type Window, type WindowQuery } from "../../http/window.ts";
import { sha256Hex } from "../../http/tokens.ts";
import { getVideo } from "../videos/service.ts";
import {
  DEFAULT_WINDOW_DAYS,
  EVENTS_DEFAULT_PER_PAGE,
  EVENTS_DEFAULT_WINDOW_DAYS,
  EVENTS_MAX_PER_PAGE,
  RETENTION_DEFAULT_BUCKETS,
  RETENTION_MAX_BUCKETS,
  SUMMARY_CACHE_SECONDS,
} from "./definitions.ts";
import * as q from "./queries.ts";
import type { CachedSummary, SummaryBody } from "./summary-cache.ts";
import { NOTHING_SEALED, sealedParam } from "./periods.ts";
import { sealedFor, sealedRetentionSql, type SealedRetentionRow, summarySql } from "./rollups.ts";

/** docs/api.md: `{video}` is a numeric id of this workspace; anything else reads as "Video not found". */
export async function videoOf(deps: Deps, workspaceId: number, videoId: number | undefined) {
  const video = videoId === undefined ? undefined : await getVideo(deps, workspaceId, videoId);
  if (!video) throw Errors.videoNotFoundRead();
  return video;
}

export const scopeOf = (workspaceId: number, videoId: number, w: Window): q.Scope => ({
  workspaceId,
  videoIds: [videoId],
  start: w.start,
  end: w.end,
  tz: w.tz,
});

/**
 * Computes the summary of a video without the cache (the bench times this): its played
 * sessions that started in the window, from the sealed hours and the sessions of the rest
 * (rollups.ts).
 */
export async function computeSummary(deps: Deps, workspaceId: number, videoId: number, videoCode: string, w: Window): Promise<SummaryBody> {
  const [row] = await q.rows<q.SummaryRow>(deps.ch, summarySql(scopeOf(workspaceId, videoId, w), await sealedFor(deps, w)));
  return { video_id: videoId, video_code: videoCode, from: w.from, to: w.to, tz: w.tz, summary: q.summaryFromRow(row) };
}

const MAX_CACHED = 10_000;

function evict(cache: Map<string, CachedSummary>, now: number): void {
  if (cache.size < MAX_CACHED) return;
  for (const [key, entry] of cache) if (entry.expiresAt <= now) cache.delete(key);
  // Still full: drop the oldest insertions (Map keeps insertion order).
  for (const key of cache.keys()) {
    if (cache.size < MAX_CACHED) break;
    cache.delete(key);
  }
}

/**
 * docs/api.md: the summary "is computed once per 60 seconds". Keyed by workspace, video
 * and the resolved window; concurrent callers share one computation.
 */
export async function summary(deps: Deps, workspaceId: number, videoId: number | undefined, input: WindowQuery): Promise<{ body: SummaryBody; etag: string }> {
  const video = await videoOf(deps, workspaceId, videoId);
  const w = resolveWindow(deps.clock.now(), input, DEFAULT_WINDOW_DAYS);
  const key = `${workspaceId}:${video.id}:${w.from}:${w.to}:${w.tz}`;
  const cache = deps.summaries;
  const now = deps.clock.now();
  const hit = cache.get(key);
  if (hit && hit.expiresAt > now) return hit.value;
  evict(cache, now);
  const value = computeSummary(deps, workspaceId, video.id, video.code, w).then((body) => ({
    body,
    etag: `"${sha256Hex(JSON.stringify(body)).slice(0, 32)}"`,
  }));
  const entry = { expiresAt: now + SUMMARY_CACHE_SECONDS * 1000, value };
  cache.set(key, entry);
  value.catch(() => cache.get(key) === entry && cache.delete(key));
  return value;
}

export interface RetentionQuery extends WindowQuery {
  buckets?: string;
  segment?: string;
}

/**
 * Retention of the scope's videos: bucket list per video id. The curves of 100 buckets
 * over the stored masks (everyone, buyers, non-buyers) merge the sealed hours of the
 * window with its other sessions (rollups.ts); any other reads every session of the window.
 * `sealed: false` reads every session (the property test compares the two).
 */
export async function computeRetention(
  deps: Deps,
  scope: q.Scope,
  buckets: number,
  segment: q.Segment = "all",
  options: { sealed?: boolean } = {},
): Promise<Map<number, { bucket_pct: number; watch_pct: number }[]>> {
  const [found, sealed] = await Promise.all([
    q.rows<q.DurationRow>(deps.ch, q.durationSql(scope)),
    options.sealed === false ? NOTHING_SEALED : sealedFor(deps, scope),
  ]);
  const durations = new Map(found.map((row) => [Number(row.video_id), Number(row.duration)]));
  const storedMasks = q.storedMasksHold(found);
  const curves = new Map(scope.videoIds.map((id) => [id, q.bucketsFromRows([], buckets)]));
  if (!durations.size) return curves;
  // Buyers and non-buyers read every session when nothing is sealed (the property test compares the two reads).
  // The curves whose buckets' midpoints are stored buckets' (100, 20, 4) are counted from the stored masks, sealed or not.
  const stored = q.storedBucketsFor(buckets);
  if (storedMasks && stored && (segment === "all" || sealed.until > 0)) {
    const params = { ...q.scopeParams({ ...scope, videoIds: [...durations.keys()] }), ...sealedParam(sealed) };
    for (const row of await q.rows<SealedRetentionRow>(deps.ch, sealedRetentionSql(q.SESSION_WHERE, params, segment))) {
      curves.set(
        Number(row.video_id),
        q.bucketsFromCounts(
          Number(row.sessions),
          stored.map((j) => Number(row.counts[j] ?? 0)),
          buckets,
        ),
      );
    }
    return curves;
  }
  for (const [id, curve] of await retentionOfSessions(deps, scope, buckets, durations, storedMasks, segment)) curves.set(id, curve);
  return curves;
}

/** The curves of the videos with sessions, read session by session (queries.ts retentionSql): from their watched ranges unless `storedMasks`. */
export async function retentionOfSessions(
  deps: Deps,
  scope: q.Scope,
  buckets: number,
  durations: Map<number, number>,
  storedMasks: boolean,
  segment: q.Segment,
): Promise<Map<number, { bucket_pct: number; watch_pct: number }[]>> {
  const byVideo = new Map<number, q.RetentionRow[]>();
  for (const row of await q.rows<q.RetentionRow>(deps.ch, q.retentionSql(scope, buckets, durations, storedMasks, segment))) {
    const id = Number(row.video_id);
    byVideo.set(id, [...(byVideo.get(id) ?? []), row]);
  }
  return new Map([...byVideo].map(([id, list]) => [id, q.bucketsFromRows(list, buckets)]));
}

export async function retention(deps: Deps, workspaceId: number, videoId: number | undefined, input: RetentionQuery) {
  const video = await videoOf(deps, workspaceId, videoId);
  const w = resolveWindow(deps.clock.now(), input, DEFAULT_WINDOW_DAYS);
  const buckets = intParam(input.buckets, "buckets", 1, RETENTION_MAX_BUCKETS, RETENTION_DEFAULT_BUCKETS);
  const segment = oneOfParam(input.segment, "segment", q.SEGMENTS, "all");
  const curves = await computeRetention(deps, scopeOf(workspaceId, video.id, w), buckets, segment);
  return { video_id: video.id, buckets: curves.get(video.id)! };
}

export interface EventsQuery extends WindowQuery {
  event_type?: string;
  page?: string;
  per_page?: string;
}

/** docs/api.md: the only paginated read; `from` defaults to 7 days ago. */
export async function events(deps: Deps, workspaceId: number, videoId: number | undefined, input: EventsQuery) {
  const video = await videoOf(deps, workspaceId, videoId);
  const w = resolveWindow(deps.clock.now(), input, EVENTS_DEFAULT_WINDOW_DAYS);
  const page = intParam(input.page, "page", 1, Number.MAX_SAFE_INTEGER, 1);
  const perPage = intParam(input.per_page, "per_page", 1, EVENTS_MAX_PER_PAGE, EVENTS_DEFAULT_PER_PAGE);
  const eventType = input.event_type === undefined || input.event_type === "" ? undefined : input.event_type;
  const scope = scopeOf(workspaceId, video.id, w);
  const [data, [count]] = await Promise.all([
    q.rows<q.EventRow>(deps.ch, q.eventsPageSql(scope, eventType, perPage, (page - 1) * perPage)),
    q.rows<{ total: number }>(deps.ch, q.eventsCountSql(scope, eventType)),
  ]);
  return { video_id: video.id, page, per_page: perPage, events: { total: Number(count?.total ?? 0), data: data.map(q.eventFromRow) } };
}

export async function conversions(deps: Deps, workspaceId: number, videoId: number | undefined, input: WindowQuery) {
  const video = await videoOf(deps, workspaceId, videoId);
  const w = resolveWindow(deps.clock.now(), input, DEFAULT_WINDOW_DAYS);
  const list = await q.rows<q.ConversionRow>(deps.ch, q.conversionsSql(scopeOf(workspaceId, video.id, w)));
  return { video_id: video.id, from: w.from, to: w.to, conversions: list.map(q.conversionFromRow) };
}
