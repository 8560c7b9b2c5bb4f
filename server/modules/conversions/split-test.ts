/**
 * When a split test is decided (`split_test.winner_declared`).
 *
 * Variations of a split test share a video's traffic evenly, so under "no
 * difference" each attributed sale is a fair coin between two variations. A
 * test is decided when it has at least MIN_CONVERSIONS verified, non-test sales
 * traced to a viewer session, and the leading variation beats the runner-up by
 * a two-sided z-test at 95 %: (a - b) / sqrt(a + b) >= 1.96. It is decided
 * once; later sales change nothing.
 */
import type { Deps } from "../../deps.ts";
import { enqueueEvent } from "../../storage/outbox.ts";
import * as repo from "./repo.ts";

export const MIN_CONVERSIONS = 100;
const Z_95 = 1.96;

export interface Tally {
  variation: string;
  conversions: number;
}

/** The winning variation, or undefined while the test is undecided. */
export function winnerOf(tallies: Tally[]): string | undefined {
  const sorted = [...tallies].sort((x, y) => y.conversions - x.conversions);
  const total = sorted.reduce((n, t) => n + t.conversions, 0);
  if (sorted.length < 2 || total < MIN_CONVERSIONS) return undefined;
  const [a, b] = [sorted[0]!.conversions, sorted[1]!.conversions];
  return (a - b) / Math.sqrt(a + b) >= Z_95 ? sorted[0]!.variation : undefined;
}

/** Re-checks a split test after a verified sale; declares its winner at most once. */
export async function decideSplitTest(deps: Deps, workspaceId: number, splitTestId: string, video: { id: number; code: string }): Promise<string | undefined> {
  return deps.sql.begin(async (tx) => {
    if (await repo.splitTestDecided(tx, workspaceId, splitTestId)) return undefined;
    const tallies = await repo.tallySplitTest(tx, workspaceId, splitTestId);
    const winner = winnerOf(tallies);
    if (!winner) return undefined;
    if (!(await repo.insertSplitTestWinner(tx, workspaceId, splitTestId, winner))) return undefined;
    await enqueueEvent(tx, workspaceId, "split_test.winner_declared", {
      split_test_id: splitTestId,
      winner_variation_id: winner,
      video: { id: video.id, code: video.code },
      conversions: Object.fromEntries(tallies.map((t) => [t.variation, t.conversions])),
      decided_at: new Date(deps.clock.now()).toISOString(),
    });
    return winner;
  });
}
