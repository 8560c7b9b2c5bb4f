import { expect, test } from "bun:test";
import type { FunnelStep } from "../contract/api.ts";
import { pathRows } from "./funnel-paths.ts";

const step = (id: number, parent_id: number | null, title: string, sessions: number, label?: string): FunnelStep => ({
  id,
  parent_id,
  depth: 0,
  choice: label ? { key: `quiz:q:${id}`, label } : null,
  video: { id: 10 + id, code: `c${id}`, title },
  sessions,
  viewers: sessions,
  plays: sessions,
  completions: 0,
  leads: 0,
  revenue: [],
});

test("each row spells its whole path and its share of the entry's sessions", () => {
  const rows = pathRows([step(0, null, "Quiz", 4), step(1, 0, "Plan", 2, "Yes"), step(2, 1, "", 1, "Buy"), step(3, 0, "Later", 1, "No")]);
  expect(rows.map((r) => [r.path, r.share])).toEqual([
    ["Quiz", 1],
    ["Quiz → “Yes” → Plan", 0.5],
    ["Quiz → “Yes” → Plan → “Buy” → #12", 0.25],
    ["Quiz → “No” → Later", 0.25],
  ]);
  expect(pathRows([step(0, null, "Quiz", 0)])[0]!.share).toBe(0);
});
