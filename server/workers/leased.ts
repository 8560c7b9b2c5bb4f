/**
 * The lease half of a JobQueue over a table of leased jobs (domains/encoding/repo.ts
 * `LeasedTable`): claims, renewals and hand-backs are the same SQL for each, so the
 * encoder, the encryptor, the playlist rewriter and the private mover differ only in
 * what a job does and how it ends.
 */
import type { Deps } from "../deps.ts";
import * as repo from "../domains/encoding/repo.ts";
import type { LeasedTable } from "../domains/encoding/repo.ts";
import type { Job, JobQueue, RunnerOptions } from "./runner.ts";

export function leased<J extends Job & object>(deps: Pick<Deps, "sql">, table: LeasedTable): Pick<JobQueue<J>, "claim" | "renew" | "retry" | "release"> {
  return {
    claim: (worker, limit, leaseMs) => repo.claimLeased<J>(deps.sql, table, worker, limit, leaseMs / 1000),
    renew: (job, worker, leaseMs) => repo.renewLeased(deps.sql, table, job.id, worker, leaseMs / 1000),
    retry: (job, worker, error, delayMs) => repo.releaseLeased(deps.sql, table, job.id, worker, delayMs / 1000, error.slice(0, 1000)),
    release: (job, worker) => repo.releaseLeased(deps.sql, table, job.id, worker),
  };
}

/**
 * The runner options of a one-off backfill job (the playlist rewriter, the private mover):
 * a minute's lease and poll, then attempts backed off from 30 s to 10 minutes.
 */
export const backfillOptions = (maxAttempts: number, pollMs = 60_000): RunnerOptions => ({
  pollMs,
  leaseMs: 60_000,
  maxAttempts,
  retryDelayMs: (attempt) => Math.min(600_000, 30_000 * 2 ** (attempt - 1)),
});
