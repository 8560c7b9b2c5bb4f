/**
 * A quiz choice or a CTA card may name `next_video_code`, the video the player swaps
 * to in place (a funnel step, docs/api.md "Funnels"). A code that names no video of
 * this workspace would publish a player whose step leads nowhere (or to another
 * workspace's video), so it is a 422 beside the field at save time instead.
 */
import { validation } from "../../errors.ts";
import type { TxSql } from "../../storage/postgres.ts";
import type { Settings } from "../../../contract/settings.ts";
import { videoCodesOf } from "./repo.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every `next_video_code` the settings name, with the dotted path of its field. */
export function nextVideoFields(settings: Settings): { field: string; code: string }[] {
  const out: { field: string; code: string }[] = [];
  (settings.quiz_options?.questions ?? []).forEach((q, i) =>
    (q?.choices ?? []).forEach((c, j) => {
      if (typeof c?.next_video_code === "string") out.push({ field: `quiz_options.questions.${i}.choices.${j}.next_video_code`, code: c.next_video_code });
    }),
  );
  (settings.cta_cards_options?.cards ?? []).forEach((c, i) => {
    if (typeof c?.next_video_code === "string") out.push({ field: `cta_cards_options.cards.${i}.next_video_code`, code: c.next_video_code });
  });
  return out;
}

export async function assertNextVideos(tx: TxSql, workspaceId: number, settings: Settings): Promise<void> {
  const fields = nextVideoFields(settings);
  if (!fields.length) return;
  // Only UUID-shaped codes can name a video; the rest are unknown without asking.
  const known = await videoCodesOf(tx, workspaceId, [...new Set(fields.map((f) => f.code.toLowerCase()).filter((c) => UUID.test(c)))]);
  const errors: Record<string, string[]> = {};
  for (const { field, code } of fields)
    if (!known.has(code.toLowerCase())) errors[field] = [`The ${field} field must be the code of a video of this workspace ("${code.slice(0, 64)}" is not).`];
  if (Object.keys(errors).length) throw validation(errors);
}
