/**
 * The rows of a video's funnel paths page (docs/api.md "Funnels"): the report's steps
 * in its depth-first order, each with the whole path that led to it spelled out
 * (video → choice → video), so a row read alone, as a screen reader reads it, says
 * where it sits, and with its share of the entry video's sessions.
 */
import type { FunnelStep } from "../contract/api.ts";

export interface PathRow {
  step: FunnelStep;
  /** The path from the entry video to this step, e.g. `Quiz → “Yes” → Plan`. */
  path: string;
  /** This step's sessions over the entry's (0..1); 0 when the entry had none. */
  share: number;
}

/** @example pathRows(report.steps)[1].path; // "Quiz → “Yes, show me” → Plan" */
export function pathRows(steps: readonly FunnelStep[]): PathRow[] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const root = steps.find((s) => s.parent_id === null);
  const title = (s: FunnelStep) => s.video.title || `#${s.video.id}`;
  const pathOf = (s: FunnelStep): string => {
    const parent = s.parent_id === null ? undefined : byId.get(s.parent_id);
    return parent ? `${pathOf(parent)} → “${s.choice?.label ?? ""}” → ${title(s)}` : title(s);
  };
  return steps.map((step) => ({ step, path: pathOf(step), share: root && root.sessions > 0 ? step.sessions / root.sessions : 0 }));
}
