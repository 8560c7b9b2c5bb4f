/**
 * Ad spend (beyond the core interface): what a seller paid per video, day and traffic source,
 * so the overview can show ROAS. Knows nothing of HTTP.
 */
import type { Deps } from "../../deps.ts";
import { Errors, validation } from "../../errors.ts";
import { resolveWindow } from "../../http/window.ts";
import { getVideo } from "../videos/service.ts";
import type { AdSpend, AdSpendBody } from "./model.ts";
import * as repo from "./repo.ts";

const DEFAULT_LIST_DAYS = 30;

async function videoOf(deps: Deps, workspaceId: number, videoId: number | undefined) {
  const video = videoId === undefined ? undefined : await getVideo(deps, workspaceId, videoId);
  if (!video) throw Errors.videoNotFoundRead();
  return video;
}

function toAdSpend(row: repo.AdSpendRow): AdSpend {
  return {
    id: row.id,
    video_id: row.video_id,
    date: row.date,
    source: row.source,
    currency: row.currency,
    amount: Number(row.amount),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The source as stored and matched: trimmed, lowercase. */
export const normaliseSource = (source: string) => source.trim().toLowerCase();

/** Upsert per (video, date, source): 201 when new, 200 when it replaced the day's figure. */
export async function saveAdSpend(deps: Deps, workspaceId: number, videoId: number | undefined, body: AdSpendBody) {
  const video = await videoOf(deps, workspaceId, videoId);
  const errors: Record<string, string[]> = {};
  const source = normaliseSource(body.source);
  if (!source || /\p{Cc}|\p{Cs}/u.test(source)) errors.source = ["The source must be 1 to 100 printable characters."];
  if (!Number.isFinite(body.amount) || body.amount < 0) errors.amount = ["The amount must be a number from 0 to 1000000000000."];
  if (Object.keys(errors).length) throw validation(errors);
  const row = await repo.upsertAdSpend(deps.sql, workspaceId, {
    videoId: video.id,
    date: body.date,
    source,
    currency: body.currency.toUpperCase(),
    amount: Math.round(body.amount * 100) / 100,
  });
  return { status: row.inserted ? 201 : 200, body: { ad_spend: toAdSpend(row) } };
}

export async function listAdSpend(deps: Deps, workspaceId: number, videoId: number | undefined, query: { from?: string; to?: string }) {
  const video = await videoOf(deps, workspaceId, videoId);
  const w = resolveWindow(deps.clock.now(), query, DEFAULT_LIST_DAYS);
  const rows = await repo.listAdSpend(deps.sql, workspaceId, video.id, w.from, w.to);
  return { video_id: video.id, from: w.from, to: w.to, ad_spend: rows.map(toAdSpend) };
}

export async function deleteAdSpend(deps: Deps, workspaceId: number, videoId: number | undefined, id: number | undefined) {
  const video = await videoOf(deps, workspaceId, videoId);
  if (id === undefined || !(await repo.deleteAdSpend(deps.sql, workspaceId, video.id, id))) throw Errors.notFound("Ad spend not found.");
  return { deleted: true };
}

/** Spend per video, source and currency on the window's days (the ROAS denominators). */
export async function spendOf(deps: Deps, workspaceId: number, videoIds: number[], from: string, to: string) {
  const rows = await repo.spendTotals(deps.sql, workspaceId, videoIds, from, to);
  return rows.map((r) => ({ videoId: Number(r.video_id), source: r.source, currency: r.currency, amount: Number(r.amount) }));
}
