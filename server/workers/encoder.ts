/**
 * The encoder worker: encode jobs run by the job runner (runner.ts),
 * `concurrency` at a time. A worker that dies stops renewing its lease and the
 * job is claimed again; a job whose workers kept dying, or whose attempts kept
 * failing for reasons outside the file (I/O, database), ends failed after
 * MAX_ATTEMPTS. A file that cannot be decoded fails at once (encodeJob).
 */
import type { Deps } from "../deps.ts";
import { encodeJob } from "../domains/encoding/service.ts";
import * as repo from "../domains/encoding/repo.ts";
import type { EncodeJobRow } from "../domains/encoding/repo.ts";
import { leased } from "./leased.ts";
import { JobRunner, type JobQueue } from "./runner.ts";

export const MAX_ATTEMPTS = 3;
/** After a failure outside the file, the next attempt waits for the outage to pass. */
const RETRY_DELAYS_MS = [10_000, 60_000];

export interface EncoderOptions {
  concurrency?: number;
  pollMs?: number;
  leaseSeconds?: number;
  /** How long stop() lets running jobs finish before handing them back to the queue. */
  graceMs?: number;
}

export function encodeQueue(deps: Deps): JobQueue<EncodeJobRow> {
  return {
    name: "encoder",
    ...leased<EncodeJobRow>(deps, "encode_jobs"),
    async run(job, { worker, signal }) {
      const result = await encodeJob(deps, job, { workerId: worker, signal });
      deps.log.info("encode finished", { job: job.id, video: job.video_id, orientation: job.orientation, result });
    },
    async fail(job, worker, sentence) {
      await deps.sql.begin(async (tx) => {
        await repo.patchMedia(tx, job.video_id, job.orientation, job.id, { status: "error", progress: 0, error: sentence });
        await repo.finishJob(tx, job.id, worker, "failed", sentence);
      });
      deps.videoCache.evict(job.video_id);
    },
    // What the video's status shows: nothing about our internals.
    sentence: () => `The file could not be encoded: the encoder stopped ${MAX_ATTEMPTS} times while working on it.`,
  };
}

export function startEncoder(deps: Deps, opts: EncoderOptions = {}): () => Promise<void> {
  const runner = new JobRunner(deps, encodeQueue(deps), {
    concurrency: opts.concurrency ?? deps.config.media.encoderConcurrency,
    pollMs: opts.pollMs ?? 1000,
    leaseMs: (opts.leaseSeconds ?? 60) * 1000,
    maxAttempts: MAX_ATTEMPTS,
    retryDelayMs: (attempt) => RETRY_DELAYS_MS[attempt - 1] ?? RETRY_DELAYS_MS.at(-1)!,
    graceMs: opts.graceMs ?? 10_000,
    wake: [deps.wake.encoder],
    onAttempt: (outcome, seconds) => {
      deps.metrics.jobAttempt("encode", outcome);
      deps.metrics.encodeAttempt(outcome, seconds);
    },
  }).start();
  return () => runner.stop();
}
