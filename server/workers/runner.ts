/**
 * The workers' one job runner (docs/architecture.md "Jobs"). A job is a row in Postgres:
 * a queue claims due rows with FOR UPDATE SKIP LOCKED and leases them to one
 * worker, so any number of processes share it. The runner keeps the lease
 * renewed while a job runs; a worker that dies stops renewing and the row is
 * claimed again once its lease lapses. A failed attempt goes back to the queue
 * after a backoff; a job out of attempts ends failed with a sentence its reader
 * understands. New work queued in this process wakes the runner at once (other
 * processes poll), and `stop()` lets running jobs finish (drain).
 *
 * `startLoop` is the loop under it (wake, sleep, stop, drain), also used by the
 * webhook deliverer (which claims in batches of its own) and the sweeper.
 */
import { hostname } from "node:os";
import type { Clock } from "../lib/clock.ts";
import { listen, Signal } from "../lib/signal.ts";
import type { Log } from "../log.ts";

export interface LoopOptions {
  /** Names the loop in logs. */
  name: string;
  /** The sleep after a round that found nothing to do. */
  pollMs: number;
  /** Signals that end the sleep early: work was queued in this process. */
  wake?: Signal[];
}

export interface Loop {
  /** Ends the sleep, lets the round in progress finish, then runs the drain. */
  stop(): Promise<void>;
}

/**
 * Runs `round` until stopped: again at once while it reports work done, else
 * after `pollMs` or a wake-up. A round that throws is logged and tried again
 * after `pollMs`. `drain` runs once, after the last round.
 */
export function startLoop(log: Log, options: LoopOptions, round: () => Promise<boolean>, drain?: () => Promise<void>): Loop {
  const stopping = new AbortController();
  const listener = listen(...(options.wake ?? []));
  const done = (async () => {
    while (!stopping.signal.aborted) {
      let busy = false;
      try {
        busy = await round();
      } catch (error) {
        log.warn("worker round failed", { worker: options.name, error: String(error) });
      }
      if (!busy && !stopping.signal.aborted) await listener.wait(options.pollMs, stopping.signal);
    }
    listener.close();
    await drain?.();
  })();
  return {
    stop() {
      stopping.abort();
      return done;
    },
  };
}

export interface Job {
  id: number;
  /** Attempts so far, this one included (the claim counts it). */
  attempts: number;
}

export interface JobContext {
  /** The worker holding the lease; a queue's writes check it, so a worker that lost its lease changes nothing. */
  worker: string;
  /** Aborted when the lease was lost or the runner stops: the job should stop soon. */
  signal: AbortSignal;
}

/** The SQL side of one kind of job. Every write is conditional on the claim still being the worker's. */
export interface JobQueue<J extends Job> {
  name: string;
  /** Claims up to `limit` due jobs (FOR UPDATE SKIP LOCKED), counting the attempt and leasing them to `worker` for `leaseMs`. */
  claim(worker: string, limit: number, leaseMs: number): Promise<J[]>;
  /** Extends the lease; false when the job is no longer the worker's (taken over, superseded, gone). */
  renew(job: J, worker: string, leaseMs: number): Promise<boolean>;
  /** Does the work and records its success; throws when the attempt failed. */
  run(job: J, context: JobContext): Promise<void>;
  /** A failed attempt: the job is due again after `delayMs`. */
  retry(job: J, worker: string, error: string, delayMs: number): Promise<void>;
  /** Out of attempts: the job ends failed, with `sentence` as its error. */
  fail(job: J, worker: string, sentence: string): Promise<void>;
  /** The runner stops: the job goes back to the queue at once. */
  release(job: J, worker: string): Promise<void>;
  /** What a job out of attempts tells its reader: its last attempt threw `error`, or (undefined) its workers kept dying. */
  sentence(job: J, error: unknown): string;
}

export interface RunnerOptions {
  /** Jobs run at once in this process. */
  concurrency?: number;
  pollMs?: number;
  leaseMs?: number;
  /** Attempts (claims) a job gets before it ends failed. */
  maxAttempts?: number;
  /** The wait before the next attempt after attempt `n` failed (default: none). */
  retryDelayMs?: (attempt: number) => number;
  /** How long `stop()` lets running jobs finish before aborting them and handing them back (default: as long as they take). */
  graceMs?: number;
  wake?: Signal[];
  /** Told how each attempt ended, once recorded, and how long it ran (the metrics of README "Probes and metrics"). */
  onAttempt?: (outcome: AttemptOutcome, seconds: number) => void;
}

/** How an attempt ended: `released` went back to the queue as the runner stopped; `lease_lost` was taken over. */
export type AttemptOutcome = "done" | "retried" | "failed" | "released" | "lease_lost";

class LeaseLost extends Error {}

export class JobRunner<J extends Job> {
  /** Host, process and runner: a lease names the runner that holds it. */
  readonly worker = `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: (attempt: number) => number;
  private readonly graceMs: number;
  private readonly running = new Map<number, { abort: AbortController; done: Promise<void> }>();
  /** A slot came free: the loop may claim again without waiting for its poll. */
  private readonly freed = new Signal();
  private loop: Loop | undefined;

  constructor(
    private readonly deps: { clock: Clock; log: Log },
    private readonly queue: JobQueue<J>,
    private readonly options: RunnerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 1;
    this.pollMs = options.pollMs ?? 1000;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.retryDelayMs = options.retryDelayMs ?? (() => 0);
    this.graceMs = options.graceMs ?? Infinity;
  }

  start(): this {
    this.loop ??= startLoop(this.deps.log, { name: this.queue.name, pollMs: this.pollMs, wake: [...(this.options.wake ?? []), this.freed] }, () => this.fill());
    return this;
  }

  /** Stops claiming, lets running jobs finish (aborting them after `graceMs`, which hands them back), and resolves when none runs. */
  async stop(): Promise<void> {
    const loop = this.loop;
    this.loop = undefined;
    await loop?.stop();
    const all = Promise.allSettled([...this.running.values()].map((r) => r.done));
    const timer = Number.isFinite(this.graceMs) ? setTimeout(() => this.abortAll(), this.graceMs) : undefined;
    await all;
    clearTimeout(timer);
  }

  /** Claims one job and runs it to its end; false when none was due. For tests, benches and one-off drains. */
  async runNext(): Promise<boolean> {
    const [job] = await this.queue.claim(this.worker, 1, this.leaseMs);
    if (!job) return false;
    await this.process(job);
    return true;
  }

  private abortAll(): void {
    for (const { abort } of this.running.values()) abort.abort(new Error(`${this.queue.name} runner stopping`));
  }

  /**
   * Claims jobs for the free slots and starts them. Always "nothing more to do
   * now": fewer jobs than slots means the queue is empty (a wake-up ends the
   * sleep), and full slots wait for one to come free (so does `freed`).
   */
  private async fill(): Promise<boolean> {
    const room = this.concurrency - this.running.size;
    if (room <= 0) return false;
    const jobs = await this.queue.claim(this.worker, room, this.leaseMs);
    for (const job of jobs) {
      const abort = new AbortController();
      const done = this.process(job, abort).finally(() => {
        this.running.delete(job.id);
        this.freed.notify();
      });
      this.running.set(job.id, { abort, done });
    }
    return false;
  }

  private async process(job: J, abort = new AbortController()): Promise<void> {
    const { queue, worker } = this;
    const { log } = this.deps;
    try {
      if (job.attempts > this.maxAttempts) {
        // Every earlier attempt ended with its worker gone (its lease lapsed): no more are made.
        await queue.fail(job, worker, queue.sentence(job, undefined));
        this.options.onAttempt?.("failed", 0);
        return;
      }
      const renewal = setInterval(() => {
        queue.renew(job, worker, this.leaseMs).then(
          (ours) => ours || abort.abort(new LeaseLost(`${queue.name} job ${job.id} is no longer ${worker}'s`)),
          (error) => log.warn("lease renewal failed", { worker: queue.name, job: job.id, error: String(error) }),
        );
      }, this.leaseMs / 3);
      const started = performance.now();
      let outcome: AttemptOutcome = "done";
      try {
        await queue.run(job, { worker, signal: abort.signal });
      } catch (error) {
        if (abort.signal.reason instanceof LeaseLost) {
          outcome = "lease_lost";
          log.warn("job lost its lease", { worker: queue.name, job: job.id });
        } else if (abort.signal.aborted) {
          outcome = "released";
          await queue.release(job, worker);
        } else if (job.attempts >= this.maxAttempts) {
          outcome = "failed";
          log.warn("job failed for good", { worker: queue.name, job: job.id, attempts: job.attempts, error: String(error) });
          await queue.fail(job, worker, queue.sentence(job, error));
        } else {
          outcome = "retried";
          log.warn("job attempt failed", { worker: queue.name, job: job.id, attempt: job.attempts, error: String(error) });
          await queue.retry(job, worker, String(error), this.retryDelayMs(job.attempts));
        }
      } finally {
        clearInterval(renewal);
      }
      this.options.onAttempt?.(outcome, (performance.now() - started) / 1000);
    } catch (error) {
      // The bookkeeping itself failed (database away): the lease lapses and the job is claimed again.
      log.warn("job bookkeeping failed", { worker: queue.name, job: job.id, error: String(error) });
    }
  }
}
