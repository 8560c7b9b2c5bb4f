/**
 * The rules of docs/api.md "Exports"; knows nothing of HTTP. An export is a Postgres row
 * (its own job); a builder streams its rows from ClickHouse into the media blob store
 * as csv (header row) or json (an array of objects), one chunk at a time.
 */
import { randomBytes } from "node:crypto";
import type { Deps } from "../../deps.ts";
import { Errors, validation } from "../../errors.ts";
import { spendOf } from "../ad-spend/service.ts";
import type { Dimension, GroupMetrics } from "../analytics/metrics.ts";
import { computeBreakdown, computeVideoMetrics } from "../analytics/overview.ts";
import * as q from "../analytics/queries.ts";
import { computeRetention } from "../analytics/service.ts";
import { sealedFor, summarySql } from "../analytics/rollups.ts";
import { resolveWindow, type Window } from "../../http/window.ts";
import { VIEWERS_MAX_PER_PAGE, viewerPage } from "../viewers/service.ts";
import { RETENTION_DEFAULT_BUCKETS } from "../analytics/definitions.ts";
import { EXPORT_COLUMNS, EXPORT_ID_PREFIX, EXPORT_RETENTION_DAYS, ExportStatus, type CreateExportBody, type ExportFormat } from "./model.ts";
import * as repo from "./repo.ts";
import type { ExportRow } from "./repo.ts";
import { deletePrivate, exportKey, getPrivate, privateBlob } from "../../storage/media-keys.ts";

const DAY_MS = 86_400_000;

const CONTENT_TYPES: Record<ExportFormat, string> = { csv: "text/csv; charset=utf-8", json: "application/json" };

export function downloadUrl(deps: Deps, row: Pick<ExportRow, "public_id">): string {
  return `${deps.config.publicUrl}/api/v1/exports/${row.public_id}/download`;
}

export async function createExport(deps: Deps, workspaceId: number, body: CreateExportBody): Promise<{ export_id: string; status: "pending" }> {
  const now = deps.clock.now();
  // Both dates are required by the schema; the window rules (422s) are the analytics reads'.
  const window = resolveWindow(now, { from: body.from, to: body.to }, 0);
  if ((body.type === "breakdown") !== (body.by !== undefined))
    throw validation({ by: [body.type === "breakdown" ? "A breakdown export needs by." : "Only a breakdown export takes by."] });
  const ids = [...new Set(body.video_ids)];
  const found = new Map((await repo.videosOf(deps.sql, workspaceId, ids)).map((v) => [Number(v.id), v.code]));
  if (ids.some((id) => !found.has(id))) throw Errors.exportVideosNotFound();
  const row = await repo.insertExport(deps.sql, {
    public_id: EXPORT_ID_PREFIX + randomBytes(12).toString("hex"),
    workspace_id: workspaceId,
    type: body.type,
    format: body.format,
    video_ids: ids,
    video_codes: ids.map((id) => found.get(id)!),
    date_from: window.from,
    date_to: window.to,
    breakdown_by: body.by ?? null,
    created_at: new Date(now),
    expires_at: new Date(now + EXPORT_RETENTION_DAYS * DAY_MS),
  });
  // A builder in this process starts at once instead of at its next poll.
  deps.wake.exports.notify();
  return { export_id: row.public_id, status: "pending" };
}

/** Unknown, another workspace's and expired exports all read as EXPORT_NOT_FOUND. */
async function liveExport(deps: Deps, workspaceId: number, publicId: string): Promise<ExportRow> {
  if (!/^flex_[0-9a-f]{1,64}$/.test(publicId)) throw Errors.exportNotFound();
  const row = await repo.findExport(deps.sql, workspaceId, publicId);
  if (!row || row.expires_at.getTime() <= deps.clock.now()) throw Errors.exportNotFound();
  return row;
}

export async function readExport(deps: Deps, workspaceId: number, publicId: string) {
  const row = await liveExport(deps, workspaceId, publicId);
  return { export_id: row.public_id, status: row.status, download_url: row.status === ExportStatus.ready ? downloadUrl(deps, row) : null };
}

export async function openDownload(deps: Deps, workspaceId: number, publicId: string) {
  const row = await liveExport(deps, workspaceId, publicId);
  if (row.status !== ExportStatus.ready || !row.blob_key) throw Errors.exportNotFound(`Export ${row.public_id} is ${row.status}; it has no file to download.`);
  const blob = await getPrivate(deps.blobs, row.blob_key);
  if (!blob) throw Errors.exportNotFound();
  return { body: blob.body, size: blob.size, contentType: CONTENT_TYPES[row.format], filename: `${row.public_id}.${row.format}` };
}

// ---- building ----

type Cell = string | number | null;
type OutRow = Record<string, Cell>;

/** Rows of the export in output order; only the events type is unbounded, and it is streamed. */
async function* rowsOf(deps: Deps, row: ExportRow, sliceRows: number): AsyncGenerator<OutRow> {
  const videoIds = row.video_ids.map(Number);
  const window = resolveWindow(deps.clock.now(), { from: row.date_from, to: row.date_to }, 0);
  const scope: q.Scope = { workspaceId: Number(row.workspace_id), videoIds, start: window.start, end: window.end, tz: window.tz };
  const dates = { from: window.from, to: window.to };
  switch (row.type) {
    case "events":
      for await (const r of eventsInSlices(deps, scope, sliceRows)) yield { video_id: Number(r.video_id), ...q.eventFromRow(r) };
      return;
    case "summary": {
      const byVideo = new Map<number, q.SummaryRow>();
      for await (const r of q.streamRows<q.SummaryRow>(deps.ch, summarySql(scope, await sealedFor(deps, scope)))) byVideo.set(Number(r.video_id), r);
      for (const [i, id] of videoIds.entries()) {
        yield { video_id: id, video_code: row.video_codes[i] ?? null, ...dates, tz: window.tz, ...q.summaryFromRow(byVideo.get(id)) };
      }
      return;
    }
    case "retention": {
      const curves = await computeRetention(deps, scope, RETENTION_DEFAULT_BUCKETS);
      for (const id of videoIds) for (const bucket of curves.get(id)!) yield { video_id: id, ...bucket };
      return;
    }
    case "conversions":
      for await (const r of q.streamRows<q.ConversionRow>(deps.ch, q.conversionsSql(scope)))
        yield { video_id: Number(r.video_id), ...dates, ...q.conversionFromRow(r) };
      return;
    case "overview": {
      const metrics = await computeVideoMetrics(deps, scope, await spendOf(deps, scope.workspaceId, videoIds, window.from, window.to));
      for (const [i, id] of videoIds.entries()) {
        yield* sellerRows({ video_id: id, video_code: row.video_codes[i] ?? null, ...dates, tz: window.tz }, metrics.get(id)!);
      }
      return;
    }
    case "breakdown": {
      const by = row.breakdown_by as Dimension;
      for (const [i, id] of videoIds.entries()) {
        const spend = by === "source" ? await spendOf(deps, scope.workspaceId, [id], window.from, window.to) : [];
        for (const r of await computeBreakdown(deps, { ...scope, videoIds: [id] }, by, spend)) {
          yield* sellerRows({ video_id: id, video_code: row.video_codes[i] ?? null, ...dates, tz: window.tz, by, value: r.value, other: String(r.other) }, r);
        }
      }
      return;
    }
    case "leads":
      for (const [i, id] of videoIds.entries()) yield* leadRows(deps, scope.workspaceId, id, row.video_codes[i] ?? null, window);
      return;
  }
}

/** The identified viewers of a video in the window, most recently seen first, a page at a time. */
async function* leadRows(deps: Deps, workspaceId: number, videoId: number, videoCode: string | null, window: Window): AsyncGenerator<OutRow> {
  for (let page = 1; ; page++) {
    const { data } = await viewerPage(deps, workspaceId, videoId, window, true, page, VIEWERS_MAX_PER_PAGE);
    for (const v of data) {
      yield {
        video_id: videoId,
        video_code: videoCode,
        viewer_id: v.viewer_id,
        email: v.email,
        external_id: v.external_id,
        first_seen_at: v.first_seen_at,
        last_seen_at: v.last_seen_at,
        sessions: v.sessions,
        watch_time_s: v.watch_time_s,
        watch_percent: v.furthest_percent,
        plays: v.plays,
        leads: v.leads,
        orders: v.orders,
      };
    }
    if (data.length < VIEWERS_MAX_PER_PAGE) return;
  }
}

/** One flat row per currency of a seller metrics object (one row with empty currency columns without sales). */
function* sellerRows(head: OutRow, m: GroupMetrics): Generator<OutRow> {
  const base: OutRow = {
    ...head,
    impressions: m.impressions,
    plays: m.plays,
    play_rate: m.play_rate,
    autoplays: m.autoplays,
    unmutes: m.unmutes,
    unmute_rate: m.unmute_rate,
    unique_viewers: m.unique_viewers,
    avg_watch_time_s: m.avg_watch_time_s,
    avg_percent_watched: m.avg_percent_watched,
    cta_clicks: m.cta_clicks.reduce((n, c) => n + c.sessions, 0),
    leads: m.leads,
    orders: m.orders,
    conversion_rate: m.conversion_rate,
    startup_time_ms_p50: m.startup_time_ms.p50,
    startup_time_ms_p95: m.startup_time_ms.p95,
    rebuffer_ratio: m.rebuffer_ratio,
    errors: m.errors,
  };
  if (!m.revenue.length) yield base;
  for (const c of m.revenue) {
    yield {
      ...base,
      currency: c.currency,
      currency_orders: c.orders,
      revenue: c.revenue,
      aov: c.aov,
      rpv: c.rpv,
      epc: c.epc,
      ad_spend: c.ad_spend,
      roas: c.roas,
    };
  }
}

/** Rows per query of the events export (see eventsInSlices). */
export const SLICE_ROWS = 100_000;

/**
 * Every event of the scope, oldest first per video, in queries of about `sliceRows`
 * rows each (whole local days of one video). Embedded chDB materialises a query's
 * result before handing it over, so a single query over a large export would hold it
 * all; slices bound that (to one busy day of one video at worst) on either engine.
 */
async function* eventsInSlices(deps: Deps, scope: q.Scope, sliceRows: number): AsyncGenerator<q.EventRow> {
  const days = await q.rows<{ video_id: number; day: string; n: number }>(deps.ch, q.eventDaysSql(scope));
  const slices: { video: number; first: string; last: string; rows: number }[] = [];
  for (const d of days) {
    const video = Number(d.video_id);
    const n = Number(d.n);
    const open = slices[slices.length - 1];
    if (open && open.video === video && open.rows + n <= sliceRows) Object.assign(open, { last: d.day, rows: open.rows + n });
    else slices.push({ video, first: d.day, last: d.day, rows: n });
  }
  for (const slice of slices) {
    const end = new Date(Date.parse(`${slice.last}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
    // Clamp to the export window: the first and last day were counted within it.
    const sub: q.Scope = {
      ...scope,
      videoIds: [slice.video],
      start: `${slice.first} 00:00:00` > scope.start ? `${slice.first} 00:00:00` : scope.start,
      end: `${end} 00:00:00` < scope.end ? `${end} 00:00:00` : scope.end,
    };
    yield* q.streamRows<q.EventRow>(deps.ch, q.eventsExportSql(sub));
  }
}

/** RFC 4180 quoting; a text cell that a spreadsheet would run as a formula gets a leading quote (OWASP CSV injection). */
function csvCell(value: Cell): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const CHUNK_CHARS = 64 * 1024;

/** Encodes rows as text chunks of about 64 KiB, counting them into `counted`. */
async function* encode(format: ExportFormat, columns: readonly string[], rows: AsyncIterable<OutRow>, counted: { rows: number }): AsyncGenerator<string> {
  let buffer = format === "csv" ? columns.join(",") + "\r\n" : "[";
  for await (const row of rows) {
    if (format === "csv") buffer += columns.map((c) => csvCell(row[c] ?? null)).join(",") + "\r\n";
    else buffer += (counted.rows ? ",\n" : "\n") + JSON.stringify(Object.fromEntries(columns.map((c) => [c, row[c] ?? null])));
    counted.rows++;
    if (buffer.length >= CHUNK_CHARS) {
      yield buffer;
      buffer = "";
    }
  }
  if (format === "json") buffer += counted.rows ? "\n]\n" : "]\n";
  yield buffer;
}

/** A pull stream: the next chunk is produced only when the blob store asks for it. */
function toStream(chunks: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await chunks.next();
      if (done) controller.close();
      else if (value.length) controller.enqueue(encoder.encode(value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}

export function blobKeyOf(row: Pick<ExportRow, "workspace_id" | "public_id" | "format">): string {
  return exportKey(row.workspace_id, row.public_id, row.format);
}

/** Streams the export's file into the private store; returns where it is and how big. */
export async function buildExport(deps: Deps, row: ExportRow, sliceRows = SLICE_ROWS): Promise<{ blobKey: string; rowCount: number; byteSize: number }> {
  const key = blobKeyOf(row);
  const counted = { rows: 0 };
  const stream = toStream(encode(row.format, EXPORT_COLUMNS[row.type], rowsOf(deps, row, sliceRows), counted));
  const stored = privateBlob(deps.blobs, key);
  const info = await stored.store.put(stored.key, stream, { contentType: CONTENT_TYPES[row.format], cacheControl: "private, no-store" });
  return { blobKey: key, rowCount: counted.rows, byteSize: info.size };
}

/** Removes exports past their retention, file first so no row points at a missing file. */
export async function sweepExpiredExports(deps: Deps): Promise<number> {
  const expired = await repo.listExpired(deps.sql, new Date(deps.clock.now()));
  if (!expired.length) return 0;
  for (const e of expired) if (e.blob_key) await deletePrivate(deps.blobs, e.blob_key);
  return repo.deleteExports(
    deps.sql,
    expired.map((e) => e.id),
  );
}
