/**
 * The funnel report (docs/api.md "Funnels"): the paths viewers took from an entry
 * video through quiz choices and CTA cards that name a next video, with viewers,
 * plays, completions, leads and revenue at each step. Knows nothing of HTTP.
 */
import type { Deps } from "../../deps.ts";
import { Errors, validation } from "../../errors.ts";
import { parseId } from "../../http/params.ts";
import { resolveWindow, type WindowQuery } from "../../http/window.ts";
import { getVideo } from "../videos/service.ts";
import type { Settings } from "../../../contract/settings.ts";
import { buildPaths, figuresOf, type SessionFacts } from "./paths.ts";
import * as repo from "./repo.ts";
import type { FunnelReport, FunnelStep } from "./model.ts";

export const FUNNEL_DEFAULT_WINDOW_DAYS = 30;

export interface ReportQuery extends WindowQuery {
  entry_video?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What a choice key says, from the video's live settings: the quiz choice's text or the card's button; the key when it is gone. */
export function choiceLabel(settings: Partial<Settings> | undefined, key: string): string {
  const [kind, a = "", b = ""] = key.split(":");
  if (kind === "quiz") {
    const question = settings?.quiz_options?.questions?.find((q) => String(q?.id) === a);
    const choice = question?.choices?.find((c) => String(c?.id) === b);
    if (choice?.text) return choice.text;
  } else if (kind === "cta") {
    const card = settings?.cta_cards_options?.cards?.[Number(a)];
    if (card?.button_text || card?.text) return (card.button_text || card.text)!;
  }
  return key;
}

const factsOf = (rows: repo.FactRow[]) =>
  new Map<string, SessionFacts>(
    rows.map((r) => [
      `${r.video_id}:${r.session_hash}`,
      { played: Number(r.played) > 0, completed: Number(r.completed) > 0, lead: Number(r.lead) > 0, device: String(r.device) },
    ]),
  );

export async function report(deps: Deps, workspaceId: number, input: ReportQuery): Promise<FunnelReport> {
  const entryId = parseId(input.entry_video ?? "");
  if (entryId === undefined) throw validation({ entry_video: ["The entry_video must be the numeric id of a video."] });
  const w = resolveWindow(deps.clock.now(), input, FUNNEL_DEFAULT_WINDOW_DAYS);
  const entry = await getVideo(deps, workspaceId, entryId);
  if (!entry) throw Errors.videoNotFoundRead();
  const scope: repo.Scope = { workspaceId, entryId, start: w.start, end: w.end, tz: w.tz };

  const [entryRows, stepRows] = await Promise.all([repo.entrySessions(deps.ch, scope), repo.stepsOf(deps.ch, scope)]);
  // A code names a video only in this workspace: another workspace's video is never reported.
  const codes = [...new Set(stepRows.map((r) => r.next_video_code))].filter((c) => UUID.test(c));
  const ids = [...new Set([entryId, ...stepRows.map((r) => Number(r.video_id))])];
  const videos = await repo.videosOf(deps.sql, workspaceId, ids, codes);
  const byCode = new Map(videos.map((v) => [v.code, v]));
  const byId = new Map(videos.map((v) => [Number(v.id), v]));
  const steps = stepRows.map((r) => ({
    video_id: Number(r.video_id),
    session_hash: r.session_hash,
    choice: r.choice,
    next: byCode.has(r.next_video_code) ? Number(byCode.get(r.next_video_code)!.id) : undefined,
  }));
  // Sessions that stepped from the entry count there even without a slot row in the window (a step just after midnight).
  const nodes = buildPaths(
    entryId,
    new Set([...entryRows.map((r) => r.session_hash), ...stepRows.filter((r) => Number(r.video_id) === entryId).map((r) => r.session_hash)]),
    steps,
  );
  const reached = [...new Set(nodes.slice(1).map((n) => n.video_id))];
  const [stepFactRows, sales] = await Promise.all([repo.stepFacts(deps.ch, scope, reached), repo.salesOf(deps.ch, scope, [...new Set([entryId, ...reached])])]);
  const facts = factsOf([...entryRows, ...stepFactRows]);
  const revenueBy = new Map<string, Map<string, number>>();
  for (const s of sales) {
    const key = `${s.video_id}:${s.session_hash}`;
    const money = revenueBy.get(key) ?? new Map<string, number>();
    money.set(s.currency, (money.get(s.currency) ?? 0) + Number(s.amount));
    revenueBy.set(key, money);
  }

  const out: FunnelStep[] = nodes.map((node) => {
    const video = byId.get(node.video_id);
    const parent = node.parent === null ? undefined : nodes[node.parent];
    const revenue = new Map<string, number>();
    for (const s of node.sessions)
      for (const [currency, amount] of revenueBy.get(`${node.video_id}:${s}`) ?? []) revenue.set(currency, (revenue.get(currency) ?? 0) + amount);
    return {
      id: node.id,
      parent_id: node.parent,
      depth: node.depth,
      choice:
        node.choice === null || !parent
          ? null
          : { key: node.choice, label: choiceLabel(byId.get(parent.video_id)?.settings as Partial<Settings> | undefined, node.choice) },
      video: { id: node.video_id, code: video?.code ?? "", title: video?.title ?? "" },
      ...figuresOf(node, facts),
      revenue: [...revenue]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([currency, amount]) => ({ currency: currency || null, amount: Math.round(amount * 100) / 100 })),
    };
  });
  return { entry_video: { id: entry.id, code: entry.code, title: entry.title }, from: w.from, to: w.to, tz: w.tz, steps: out };
}
