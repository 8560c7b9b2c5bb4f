/**
 * The encoder worker: claims encode jobs (FOR UPDATE SKIP LOCKED, with a lease)
 * and runs them, `concurrency` at a time. A worker that dies stops renewing its
 * lease and the job is claimed again; after MAX_ATTEMPTS claims it is failed.
 */
import { hostname } from "node:os";
import { videoChanged, type Deps } from "../deps.ts";
import { encodeJob, unaddressedWakeUps } from "../modules/encoding/service.ts";
import * as repo from "../modules/encoding/repo.ts";
import { listen } from "../lib/signal.ts";

export const MAX_ATTEMPTS = 3;

export interface EncoderOptions {
  concurrency?: number;
  pollMs?: number;
  leaseSeconds?: number;
  /** How long stop() lets running jobs finish before handing them back to the queue. */
  graceMs?: number;
}

export function startEncoder(deps: Deps, opts: EncoderOptions = {}): () => Promise<void> {
  const concurrency = opts.concurrency ?? deps.config.media.encoderConcurrency;
  const pollMs = opts.pollMs ?? 1000;
  const leaseSeconds = opts.leaseSeconds ?? 60;
  const graceMs = opts.graceMs ?? 10_000;
  const stopping = new AbortController();
  const inFlight = new Map<number, AbortController>();
  // A job queued while every slot is busy claiming must not wait for the next poll.
  const listener = listen(deps.wake.encoder, unaddressedWakeUps);
  const idle = () => listener.wait(pollMs, stopping.signal);

  const loop = async (slot: number) => {
    const workerId = `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}:${slot}`;
    while (!stopping.signal.aborted) {
      let job: repo.EncodeJobRow | undefined;
      try {
        job = await repo.claimJob(deps.sql, workerId, leaseSeconds);
      } catch (error) {
        deps.log.warn("encode claim failed", { error: String(error) });
      }
      if (!job) {
        await idle();
        continue;
      }
      await runOne(job, workerId);
    }
  };

  const runOne = async (job: repo.EncodeJobRow, workerId: string) => {
    if (job.attempts > MAX_ATTEMPTS) {
      const message = `The file could not be encoded: the encoder stopped ${MAX_ATTEMPTS} times while working on it.`;
      await deps.sql.begin(async (tx) => {
        await repo.patchMedia(tx, job.video_id, job.orientation, job.id, { status: "error", progress: 0, error: message });
        await repo.finishJob(tx, job.id, workerId, "failed", message);
      });
      videoChanged(deps, job.video_id);
      return;
    }
    const abort = new AbortController();
    inFlight.set(job.id, abort);
    try {
      const result = await encodeJob(deps, job, { workerId, signal: abort.signal, leaseSeconds, onLost: () => abort.abort(new Error("job lost")) });
      deps.log.info("encode finished", { job: job.id, video: job.video_id, orientation: job.orientation, result });
    } catch (error) {
      // Not a property of the file (I/O, database, stop): the job goes back to the queue.
      deps.log.warn("encode interrupted", { job: job.id, error: String(error) });
      await repo.releaseJob(deps.sql, job.id, workerId).catch(() => {});
    } finally {
      inFlight.delete(job.id);
    }
  };

  const loops = Array.from({ length: concurrency }, (_, i) => loop(i));
  return async () => {
    listener.close();
    stopping.abort();
    const all = Promise.all(loops);
    const timer = setTimeout(() => inFlight.forEach((c) => c.abort(new Error("encoder stopping"))), graceMs);
    await all;
    clearTimeout(timer);
  };
}
