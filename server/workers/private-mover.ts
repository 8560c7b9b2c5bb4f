/**
 * The private mover: the job of 0022_private_files.sql on the job runner (runner.ts).
 * It walks the keys of sources and export files still in the media store, in key
 * order, and moves each to the private store (domains/private-files/move.ts). An
 * outage fails the attempt, which is tried again after a backoff; every step is safe
 * to repeat, so the next attempt (or the next worker) starts from the first key left.
 */
import type { Deps } from "../deps.ts";
import { finishLeased } from "../domains/encoding/repo.ts";
import { moveToPrivate } from "../domains/private-files/move.ts";
import * as repo from "../domains/private-files/repo.ts";
import type { PrivateMoveRow } from "../domains/private-files/repo.ts";
import { backfillOptions, leased } from "./leased.ts";
import { JobRunner, type JobQueue } from "./runner.ts";

export const MAX_ATTEMPTS = 5;
const BATCH = 50;

export function privateMoveQueue(deps: Deps): JobQueue<PrivateMoveRow> {
  return {
    name: "private mover",
    ...leased<PrivateMoveRow>(deps, "private_moves"),
    async run(job, { worker, signal }) {
      let after = "";
      for (;;) {
        const keys = await repo.oldKeys(deps.sql, after, BATCH);
        if (keys.length === 0) break;
        for (const key of keys) {
          if (signal.aborted) throw signal.reason ?? new Error("aborted");
          await moveToPrivate(deps, key);
          after = key;
        }
        if (!(await repo.advanceMove(deps.sql, job.id, worker, keys.length))) return;
      }
      await finishLeased(deps.sql, "private_moves", job.id, worker, "done");
      deps.log.info("private files moved", { version: job.version });
    },
    fail: (job, worker, sentence) => finishLeased(deps.sql, "private_moves", job.id, worker, "failed", sentence),
    sentence: (_job, error) => (error === undefined ? `The private mover stopped ${MAX_ATTEMPTS} times while working.` : String(error).slice(0, 1000)),
  };
}

const options = (pollMs?: number) => backfillOptions(MAX_ATTEMPTS, pollMs);

export function startPrivateMover(deps: Deps, opts: { pollMs?: number } = {}): () => Promise<void> {
  const runner = new JobRunner(deps, privateMoveQueue(deps), options(opts.pollMs)).start();
  return () => runner.stop();
}

/** Claims the move and runs it to its end; false when none was due (tests). */
export function runNextPrivateMove(deps: Deps): Promise<boolean> {
  return new JobRunner(deps, privateMoveQueue(deps), options()).runNext();
}
