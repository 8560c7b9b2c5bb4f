/** The rules of docs/api.md "Viewers": who watched a video, one viewer's sessions and heatmap; knows nothing of HTTP. */
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import { intParam, oneOfParam, parseId } from "../../http/params.ts";
import { resolveWindow, type WindowQuery } from "../../http/window.ts";
import { getVideo } from "../videos/service.ts";
import * as viewerDomain from "../../domains/viewers/service.ts";
import { viewerFootprint } from "../../domains/viewers/repo.ts";
import type { ViewerEvent, ViewerHeatmap, ViewerSession, ViewerSummary, ViewerTimeline } from "./model.ts";
import * as q from "../../domains/viewers/events.ts";
import { furthestPercent, heatmapCounts, joinRanges, type Range } from "../../domains/viewers/ranges.ts";
import { type Bounds, sessionsOf, type VideoSessionRow } from "../../domains/viewers/repo.ts";
import * as repo from "./repo.ts";

export const VIEWERS_DEFAULT_WINDOW_DAYS = 30;
export const VIEWERS_DEFAULT_PER_PAGE = 50;
export const VIEWERS_MAX_PER_PAGE = 200;
export const HEATMAP_DEFAULT_BUCKETS = 100;
export const HEATMAP_MAX_BUCKETS = 200;

async function videoOf(deps: Deps, workspaceId: number, videoId: number | undefined) {
  const video = videoId === undefined ? undefined : await getVideo(deps, workspaceId, videoId);
  if (!video) throw Errors.videoNotFoundRead();
  return video;
}

const viewerNotFound = () => Errors.notFound("Viewer not found");

export interface ListQuery extends WindowQuery {
  identified?: string;
  page?: string;
  per_page?: string;
}

/** Sums the sessions' facts and sales into one viewer's row. */
function summarise(
  viewerId: number,
  identity: repo.IdentityRow | undefined,
  sessions: VideoSessionRow[],
  facts: Map<string, q.SessionFacts>,
  sales: repo.SaleRow[],
): ViewerSummary {
  let watch = 0;
  let furthest = 0;
  let duration = 0;
  let plays = 0;
  let leads = 0;
  for (const s of sessions) {
    const f = facts.get(s.session_code);
    if (!f) continue;
    watch += Number(f.watch_s);
    furthest = Math.max(furthest, Number(f.furthest_s));
    duration = Math.max(duration, Number(f.duration_s));
    plays += Number(f.plays);
    leads += Number(f.leads);
  }
  const revenue = new Map<string | null, number>();
  for (const sale of sales) revenue.set(sale.currency, (revenue.get(sale.currency) ?? 0) + Number(sale.value ?? 0));
  return {
    viewer_id: viewerId,
    identified: identity?.identified ?? false,
    email: identity?.email ?? null,
    external_id: identity?.external_id ?? null,
    sessions: sessions.length,
    first_seen_at: sessions[0]!.started_at.toISOString(),
    last_seen_at: sessions[sessions.length - 1]!.started_at.toISOString(),
    watch_time_s: Math.round(watch * 10) / 10,
    furthest_percent: furthestPercent(furthest, duration || furthest),
    plays,
    leads,
    orders: sales.length,
    revenue: [...revenue].map(([currency, amount]) => ({ currency, amount: Math.round(amount * 100) / 100 })),
  };
}

const groupBy = <T, K>(list: T[], key: (item: T) => K): Map<K, T[]> => {
  const out = new Map<K, T[]>();
  for (const item of list) out.set(key(item), [...(out.get(key(item)) ?? []), item]);
  return out;
};

/** The viewers of a video, most recently seen first (docs/api.md "Viewers"). */
export async function listViewers(deps: Deps, workspaceId: number, videoId: number | undefined, input: ListQuery) {
  const video = await videoOf(deps, workspaceId, videoId);
  const w = resolveWindow(deps.clock.now(), input, VIEWERS_DEFAULT_WINDOW_DAYS);
  const identifiedOnly = oneOfParam(input.identified, "identified", ["true", "false"], "false") === "true";
  const page = intParam(input.page, "page", 1, Number.MAX_SAFE_INTEGER, 1);
  const perPage = intParam(input.per_page, "per_page", 1, VIEWERS_MAX_PER_PAGE, VIEWERS_DEFAULT_PER_PAGE);
  return { ...(await viewerPage(deps, workspaceId, video.id, w, identifiedOnly, page, perPage)), page, perPage };
}

/** One page of a video's viewers whose sessions began in the window, and how many there are in all (the list, the leads export). */
export async function viewerPage(
  deps: Deps,
  workspaceId: number,
  videoId: number,
  w: Bounds,
  identifiedOnly: boolean,
  page: number,
  perPage: number,
): Promise<{ data: ViewerSummary[]; total: number }> {
  const found = await repo.listViewers(deps.sql, workspaceId, videoId, w, identifiedOnly, perPage, (page - 1) * perPage);
  const ids = found.map((r) => r.viewer_id);
  const [sessions, identities] = await Promise.all([sessionsOf(deps.sql, workspaceId, videoId, ids, w), repo.identitiesOf(deps.sql, workspaceId, ids)]);
  const scope = q.sessionsScope(workspaceId, videoId, sessions);
  const [facts, sales] = await Promise.all([q.sessionFacts(deps.ch, scope), repo.salesOf(deps.sql, workspaceId, videoId, scope.codes)]);
  const factsBy = new Map(facts.map((f) => [f.session_code, f]));
  const sessionsBy = groupBy(sessions, (s) => s.viewer_id);
  const identityBy = new Map(identities.map((i) => [i.viewer_id, i]));
  const viewerOf = new Map(sessions.map((s) => [s.session_code, s.viewer_id]));
  const salesBy = groupBy(sales, (s) => viewerOf.get(s.session_code));
  const data = ids.map((id) => summarise(id, identityBy.get(id), sessionsBy.get(id) ?? [], factsBy, salesBy.get(id) ?? []));
  // A page past the end has no row to carry the total.
  const total = found[0]?.total ?? (page > 1 ? ((await repo.listViewers(deps.sql, workspaceId, videoId, w, identifiedOnly, 1, 0))[0]?.total ?? 0) : 0);
  return { data, total };
}

/** One viewer's sessions of the video (all of them, oldest first), or 404 when the viewer is not of this workspace or never played it. */
async function viewerSessions(deps: Deps, workspaceId: number, videoId: number, viewerId: number | undefined): Promise<VideoSessionRow[]> {
  if (viewerId === undefined) throw viewerNotFound();
  const sessions = await sessionsOf(deps.sql, workspaceId, videoId, [viewerId]);
  if (sessions.length === 0) throw viewerNotFound();
  return sessions;
}

const text = (v: string | undefined) => (v ? v : null);

/** A timeline row as the seller reads it; null for rows that only describe the session (load, watched, autoplay). */
function toEvent(row: q.TimelineRow): ViewerEvent | null {
  const at = new Date(Number(row.at_ms)).toISOString();
  const p = row.properties;
  const base = { at, video_time: Number(row.video_time) };
  switch (row.event_type) {
    case "play":
    case "unmute":
      return { ...base, type: "play", detail: {} };
    case "pause":
    case "ended":
      return { ...base, type: row.event_type, detail: {} };
    case "seek":
      return { ...base, type: "seek", detail: { from_s: p.from_s === undefined ? null : Number(p.from_s) } };
    case "cta_click":
      return { ...base, type: "cta_click", detail: { card_index: p.card_index === undefined ? null : Number(p.card_index) } };
    case "quiz_answered":
      return {
        ...base,
        type: "quiz_answer",
        detail: { question_id: text(p.question_id), choice_id: text(p.choice_id), correct: p.correct === undefined ? null : p.correct === "true" },
      };
    case "lead_form_submitted":
      return { ...base, type: "lead", detail: {} };
    default:
      return null;
  }
}

/** docs/api.md "Viewers": every session of one viewer of this video, oldest first, with what happened in it. */
export async function timeline(deps: Deps, workspaceId: number, videoId: number | undefined, viewerId: number | undefined): Promise<ViewerTimeline> {
  const video = await videoOf(deps, workspaceId, videoId);
  const sessions = await viewerSessions(deps, workspaceId, video.id, viewerId);
  const scope = q.sessionsScope(workspaceId, video.id, sessions);
  const [events, sales, [identity]] = await Promise.all([
    q.timelineRows(deps.ch, scope),
    repo.salesOf(deps.sql, workspaceId, video.id, scope.codes),
    repo.identitiesOf(deps.sql, workspaceId, [viewerId!]),
  ]);
  const facts = q.factsFromRows(events);
  const eventsBy = groupBy(events, (e) => e.session_code);
  const salesBy = groupBy(sales, (s) => s.session_code);
  const list: ViewerSession[] = sessions.map((s) => {
    const rows = eventsBy.get(s.session_code) ?? [];
    const start = rows.find((r) => r.event_type === "load" || r.event_type === "play" || r.event_type === "autoplay")?.properties ?? {};
    const load = rows.find((r) => r.event_type === "load")?.properties ?? {};
    const ranges: Range[] = rows
      .filter((r) => r.event_type === "watched")
      .map((r): Range => [Number(r.video_time), Number(r.video_time) + Number(r.watch_seconds)]);
    const saleEvents: ViewerEvent[] = (salesBy.get(s.session_code) ?? []).map((sale) => ({
      type: "sale",
      at: sale.occurred_at.toISOString(),
      video_time: null,
      detail: { amount: sale.value === null ? null : Number(sale.value), currency: sale.currency, product: sale.product_name },
    }));
    const played = rows.map(toEvent).filter((e): e is ViewerEvent => e !== null);
    return {
      session_id: s.session_code,
      started_at: s.started_at.toISOString(),
      source: text(load.utm_source) ?? text(load.referrer_host),
      device: text(start.device),
      browser: text(start.browser),
      os: text(start.os),
      country: text(start.country),
      watch_time_s: Math.round(ranges.reduce((sum, [from, to]) => sum + (to - from), 0) * 10) / 10,
      watched_ranges: joinRanges(ranges).map(([from, to]) => [Math.round(from * 10) / 10, Math.round(to * 10) / 10]),
      events: [...played, ...saleEvents].sort((a, b) => a.at.localeCompare(b.at)),
    };
  });
  const viewer = summarise(viewerId!, identity, sessions, new Map(facts.map((f) => [f.session_code, f])), sales);
  return { video_id: video.id, viewer, sessions: list };
}

/** docs/api.md "Viewers": how many times the viewer watched each part of the video, across every session. */
export async function heatmap(
  deps: Deps,
  workspaceId: number,
  videoId: number | undefined,
  viewerId: number | undefined,
  input: { buckets?: string },
): Promise<ViewerHeatmap> {
  const video = await videoOf(deps, workspaceId, videoId);
  const buckets = intParam(input.buckets, "buckets", 1, HEATMAP_MAX_BUCKETS, HEATMAP_DEFAULT_BUCKETS);
  const sessions = await viewerSessions(deps, workspaceId, video.id, viewerId);
  const scope = q.sessionsScope(workspaceId, video.id, sessions);
  const rows = await q.timelineRows(deps.ch, scope);
  const duration = q.factsFromRows(rows).reduce((max, f) => Math.max(max, f.duration_s), 0);
  const ranges: Range[] = rows
    .filter((r) => r.event_type === "watched")
    .map((r): Range => [Number(r.video_time), Number(r.video_time) + Number(r.watch_seconds)]);
  return { buckets, duration_s: duration > 0 ? duration : null, counts: heatmapCounts(ranges, duration, buckets) };
}

/**
 * docs/api.md "Viewers", erasure: every event of the viewer in ClickHouse first (their
 * session codes and devices are still known, so a failure here can be retried), then
 * their identity and sessions in PostgreSQL.
 */
export async function erase(deps: Deps, workspaceId: number, rawId: string): Promise<{ deleted: true }> {
  const viewerId = parseId(rawId);
  const footprint = viewerId === undefined ? undefined : await viewerFootprint(deps.sql, workspaceId, viewerId);
  if (viewerId === undefined || !footprint) throw Errors.modelNotFound("Viewer", rawId);
  await q.eraseViewerRows(deps.ch, deps.config.clickhouseCluster, { workspaceId, viewerId, ...footprint });
  await viewerDomain.eraseViewer(deps, workspaceId, viewerId, footprint);
  return { deleted: true };
}
