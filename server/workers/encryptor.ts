/**
 * The encryptor: encryption jobs (0023_encryption.sql) on the job runner (runner.ts).
 * A job encrypts one video's ready segments without re-encoding
 * (domains/encoding/encrypt.ts); an outage fails the attempt, which is tried again
 * after a backoff, and every step can be repeated.
 */
import type { Deps } from "../deps.ts";
import { encryptVideo } from "../domains/encoding/encrypt.ts";
import { finishLeased, type EncryptionJobRow } from "../domains/encoding/repo.ts";
import { leased } from "./leased.ts";
import { JobRunner, type JobQueue, type RunnerOptions } from "./runner.ts";

export const MAX_ATTEMPTS = 5;

export function encryptionQueue(deps: Deps): JobQueue<EncryptionJobRow> {
  return {
    name: "encryptor",
    ...leased<EncryptionJobRow>(deps, "encryption_jobs"),
    async run(job, { worker }) {
      const encrypted = await encryptVideo(deps, job.video_id);
      await finishLeased(deps.sql, "encryption_jobs", job.id, worker, "done");
      deps.log.info("encryption finished", { video: job.video_id, orientations: encrypted });
    },
    fail: (job, worker, sentence) => finishLeased(deps.sql, "encryption_jobs", job.id, worker, "failed", sentence),
    sentence: (_job, error) => (error === undefined ? `The encryptor stopped ${MAX_ATTEMPTS} times while working.` : String(error).slice(0, 1000)),
  };
}

const options = (deps: Deps, pollMs = 2000): RunnerOptions => ({
  pollMs,
  leaseMs: 60_000,
  maxAttempts: MAX_ATTEMPTS,
  retryDelayMs: (attempt) => Math.min(600_000, 10_000 * 2 ** (attempt - 1)),
  // Queued beside encodes: the same wake-up.
  wake: [deps.wake.encoder],
});

export function startEncryptor(deps: Deps, opts: { pollMs?: number } = {}): () => Promise<void> {
  const runner = new JobRunner(deps, encryptionQueue(deps), options(deps, opts.pollMs)).start();
  return () => runner.stop();
}

/** Claims one encryption job and runs it to its end; false when none was due (tests). */
export function runNextEncryption(deps: Deps): Promise<boolean> {
  return new JobRunner(deps, encryptionQueue(deps), options(deps)).runNext();
}
