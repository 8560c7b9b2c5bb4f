/**
 * Builds pending exports, one at a time per process, with the job runner
 * (runner.ts): any number of builders share the queue (FOR UPDATE SKIP LOCKED),
 * a crashed builder's export is taken over once its lease lapses, a failed build
 * is tried again and reads `failed` after MAX_ATTEMPTS, and stopping waits for
 * the export being built (drain). Expired exports are the sweeper's.
 */
import type { Deps } from "../deps.ts";
import { buildExport } from "../api/exports/service.ts";
import * as repo from "../api/exports/repo.ts";
import type { ExportRow } from "../api/exports/repo.ts";
import { JobRunner, type JobQueue, type RunnerOptions } from "./runner.ts";

/** A builder holds an export this long without renewing before another may take it over. */
export const LEASE_MS = 5 * 60_000;
/** Attempts before an export reads `failed`. */
export const MAX_ATTEMPTS = 3;

export interface ExportBuilderOptions {
  /** How often to look for work when nothing woke the builder. */
  pollMs?: number;
  /** Rows per query of an events export (exports/service.ts SLICE_ROWS). */
  sliceRows?: number;
}

export function exportQueue(deps: Deps, opts: ExportBuilderOptions = {}): JobQueue<ExportRow> {
  const at = (ms = 0) => new Date(deps.clock.now() + ms);
  return {
    name: "export builder",
    claim: (_worker, limit, leaseMs) => repo.claimExports(deps.sql, at(), at(leaseMs), limit),
    renew: (job, _worker, leaseMs) => repo.extendLease(deps.sql, job.id, job.attempts, at(leaseMs)),
    async run(job) {
      const built = await buildExport(deps, job, opts.sliceRows);
      const finished = await repo.markReady(deps.sql, job.id, job.attempts, { ...built, at: at() });
      if (!finished) deps.log.warn("export finished after losing its lease", { export_id: job.public_id });
      else deps.log.info("export ready", { export_id: job.public_id, rows: built.rowCount, bytes: built.byteSize });
    },
    retry: (job, _worker, error, delayMs) =>
      repo.markAttemptFailed(deps.sql, job.id, job.attempts, error.slice(0, 1000), at(), delayMs > 0 ? at(delayMs) : null),
    fail: (job, _worker, sentence) => repo.markAttemptFailed(deps.sql, job.id, job.attempts, sentence, at(), undefined),
    release: (job) => repo.releaseExport(deps.sql, job.id, job.attempts, at()),
    sentence: (_job, error) =>
      error === undefined ? `The export builder stopped ${MAX_ATTEMPTS} times while building this export.` : String(error).slice(0, 1000),
  };
}

const options = (deps: Deps, opts: ExportBuilderOptions): RunnerOptions => ({
  pollMs: opts.pollMs ?? 2_000,
  leaseMs: LEASE_MS,
  maxAttempts: MAX_ATTEMPTS,
  wake: [deps.wake.exports],
  onAttempt: (outcome) => deps.metrics.jobAttempt("export", outcome),
});

export function startExportBuilder(deps: Deps, opts: ExportBuilderOptions = {}): () => Promise<void> {
  const runner = new JobRunner(deps, exportQueue(deps, opts), options(deps, opts)).start();
  return () => runner.stop();
}

/** Claims one export and builds it to its end; false when none was waiting (tests, benches). */
export function processNextExport(deps: Deps, opts: ExportBuilderOptions = {}): Promise<boolean> {
  return new JobRunner(deps, exportQueue(deps, opts), options(deps, opts)).runNext();
}
