/**
 * The webhook deliverer: fans outbox rows out into per-subscription deliveries
 * and sends them, signed, with retries. All state is in Postgres (claimed with
 * FOR UPDATE SKIP LOCKED and leased), so any number of processes share the
 * work and a delivery outlives the process that was sending it.
 *
 * Retry rule (issue "Delivery"): a failed attempt (non-2xx, redirect, network
 * error, timeout, refused target) is retried after 5 s, 5 min, 30 min, 2 h,
 * 5 h, 10 h, 10 h (each times a jitter factor in [0.9, 1.1]); a Retry-After
 * longer than that wins (capped at 24 h). So a delivery has at most 8 attempts.
 * `failure_count` counts consecutive failed attempts of the subscription and
 * any 2xx resets it. The subscription is set `is_active: false` when the
 * receiver answers 410 Gone, or when a delivery fails its 8th and last attempt
 * (its endpoint has refused it for about 27.6 hours); its pending deliveries
 * are then cancelled. Delivery is at-least-once (receivers dedup on
 * `webhook-id`, the outbox event id) and not ordered: attempts run concurrently.
 * Once an hour the loop drops finished deliveries and dispatched outbox rows
 * older than a week.
 */
import type { Deps } from "../deps.ts";
import type { Envelope } from "../api/webhooks/model.ts";
import * as repo from "../api/webhooks/repo.ts";
import { attemptDelivery, ATTEMPT_TIMEOUT_MS, type AttemptResult } from "../api/webhooks/send.ts";
import { startLoop, type Loop } from "./runner.ts";

export const RETRY_SCHEDULE_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000] as const;
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;
const SETTLE_MS = 20;
const KEEP_FINISHED_MS = 7 * 24 * 3_600_000;

export interface DelivererOptions {
  /** Sleep between polls when there is nothing to do. */
  pollMs?: number;
  /** Deliveries in flight at once in this process. */
  concurrency?: number;
  /** At most this many outbox rows fanned out per statement. */
  fanOutBatch?: number;
  timeoutMs?: number;
  /** How long a claim stays with this process before another may take it over. */
  leaseMs?: number;
  /** For tests: a fixed jitter source in [0, 1). */
  random?: () => number;
}

export interface RoundResult {
  fannedOut: number;
  attempted: number;
  delivered: number;
  failed: number;
}

interface Outcome {
  id: number;
  subscription_id: number;
  attempts: number;
  result: AttemptResult;
}

export function nextDelay(attempts: number, retryAfterMs: number | undefined, random: () => number): number | undefined {
  if (attempts >= MAX_ATTEMPTS) return undefined;
  const scheduled = Math.round(RETRY_SCHEDULE_MS[attempts - 1]! * (0.9 + 0.2 * random()));
  return retryAfterMs === undefined ? scheduled : Math.max(scheduled, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

export class WebhookDeliverer {
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly fanOutBatch: number;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly random: () => number;
  private readonly inflight = new Set<Promise<void>>();
  private outcomes: Outcome[] = [];
  private loop: Loop | undefined;
  private lastPrune = 0;

  constructor(
    private readonly deps: Deps,
    options: DelivererOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 500;
    this.concurrency = options.concurrency ?? 32;
    this.fanOutBatch = options.fanOutBatch ?? 500;
    this.timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
    // Longer than one attempt can take, so a live attempt is never taken over.
    this.leaseMs = options.leaseMs ?? Math.max(60_000, this.timeoutMs * 4);
    this.random = options.random ?? Math.random;
  }

  private now(): Date {
    return new Date(this.deps.clock.now());
  }

  /**
   * Fills the free slots: first attempts of new outbox events (fanned out and
   * claimed in one statement), then retries and expired leases that are due.
   * Fan-out goes no faster than delivery, so no process holds more claims than
   * it can work through within the lease.
   */
  private async fill(): Promise<{ fannedOut: number; claimed: number }> {
    let fannedOut = 0;
    let claimed = 0;
    const start = (jobs: repo.ClaimedDelivery[]) => {
      for (const job of jobs) {
        const run = this.attempt(job).finally(() => this.inflight.delete(run));
        this.inflight.add(run);
      }
      claimed += jobs.length;
    };
    // Each event usually has a delivery or two: take a batch of events up to the free room.
    for (let i = 0; i < 10 && this.inflight.size < this.concurrency; i++) {
      const now = this.deps.clock.now();
      const room = Math.min(this.fanOutBatch, this.concurrency - this.inflight.size);
      const taken = await repo.fanOutAndClaim(this.deps.sql, room, new Date(now), new Date(now + this.leaseMs));
      fannedOut += taken.events;
      start(taken.claimed);
      if (taken.events < room) break;
    }
    const room = this.concurrency - this.inflight.size;
    if (room > 0) {
      const now = this.deps.clock.now();
      start(await repo.claimDue(this.deps.sql, room, new Date(now), new Date(now + this.leaseMs)));
    }
    return { fannedOut, claimed };
  }

  private async attempt(job: repo.ClaimedDelivery): Promise<void> {
    const envelope: Envelope = {
      id: job.event_id,
      event: job.event,
      workspace_id: job.workspace_id,
      created_at: job.event_created_at.toISOString(),
      data: job.data,
    };
    let result: AttemptResult;
    try {
      result = await attemptDelivery(job.url, job.secret, envelope, {
        allowPrivate: this.deps.config.webhookAllowPrivate,
        nowMs: this.deps.clock.now(),
        timeoutMs: this.timeoutMs,
      });
    } catch (error) {
      result = { ok: false, error: `internal error: ${String(error)}` };
    }
    this.outcomes.push({ id: job.id, subscription_id: job.subscription_id, attempts: job.attempts, result });
  }

  /** Writes finished attempts: successes in one statement, failures one by one. */
  private async flush(): Promise<{ delivered: number; failed: number }> {
    const batch = this.outcomes;
    this.outcomes = [];
    if (batch.length === 0) return { delivered: 0, failed: 0 };
    const now = this.now();
    const ok = batch.filter((o) => o.result.ok);
    try {
      await repo.markDelivered(
        this.deps.sql,
        ok.map((o) => ({ id: o.id, status: o.result.status! })),
        now,
      );
    } catch (error) {
      // The lease runs out and the deliveries are sent again: at-least-once.
      this.deps.log.warn("webhook delivery bookkeeping failed", { error: String(error) });
    }
    let failed = 0;
    for (const o of batch) {
      if (o.result.ok) continue;
      failed++;
      const gone = o.result.status === 410;
      const delay = gone ? undefined : nextDelay(o.attempts, o.result.retryAfterMs, this.random);
      const outcome =
        delay !== undefined
          ? { retryAt: new Date(now.getTime() + delay) }
          : { giveUp: true as const, disableReason: gone ? "receiver answered 410 Gone" : `delivery failed ${MAX_ATTEMPTS} attempts` };
      this.deps.metrics.webhookFailed(delay !== undefined ? "retry" : "gave_up");
      try {
        await repo.recordFailure(
          this.deps.sql,
          { id: o.id, subscription_id: o.subscription_id, status: o.result.status, error: o.result.error ?? "failed" },
          outcome,
          now,
        );
      } catch (error) {
        this.deps.log.warn("webhook failure bookkeeping failed", { error: String(error) });
      }
      this.deps.log.debug("webhook attempt failed", { delivery: o.id, attempts: o.attempts, status: o.result.status, error: o.result.error });
    }
    return { delivered: ok.length, failed };
  }

  /**
   * Waits until half the slots are free (or all, when few are busy), for at
   * most `SETTLE_MS`: claims and bookkeeping then go in batches instead of one
   * round trip per finished attempt, and a slow receiver delays the others by
   * no more than that.
   */
  private async settle(): Promise<void> {
    if (this.inflight.size === 0) return;
    const lowWater = Math.floor(this.concurrency / 2);
    let timedOut = false;
    const timer = new Promise<void>((resolve) => setTimeout(() => ((timedOut = true), resolve()), SETTLE_MS));
    await Promise.race(this.inflight);
    while (!timedOut && this.inflight.size > lowWater) await Promise.race([timer, ...this.inflight]);
  }

  /**
   * Runs rounds until nothing is pending in the outbox, nothing is due and
   * nothing is in flight (for tests, benches and draining). Bounded by `maxRounds`.
   */
  async runUntilIdle(maxRounds = 100_000): Promise<RoundResult> {
    const total: RoundResult = { fannedOut: 0, attempted: 0, delivered: 0, failed: 0 };
    for (let round = 0; round < maxRounds; round++) {
      const { fannedOut, claimed } = await this.fill();
      total.fannedOut += fannedOut;
      total.attempted += claimed;
      await this.settle();
      const { delivered, failed } = await this.flush();
      total.delivered += delivered;
      total.failed += failed;
      if (fannedOut === 0 && claimed === 0 && this.inflight.size === 0 && this.outcomes.length === 0) break;
    }
    return total;
  }

  /**
   * Starts the background loop (runner.ts `startLoop`); `stop()` ends it after the
   * attempts in flight finish and are recorded.
   */
  start(): this {
    this.loop ??= startLoop(
      this.deps.log,
      { name: "webhook deliverer", pollMs: this.pollMs },
      () => this.round(),
      () => this.drain(),
    );
    return this;
  }

  /** One round; true while there is work, so a backlog drains without sleeping (events nobody subscribed to included). */
  private async round(): Promise<boolean> {
    const { claimed, fannedOut } = await this.fill();
    await this.settle();
    await this.flush();
    await this.maybePrune();
    return claimed > 0 || fannedOut > 0 || this.inflight.size > 0;
  }

  private async drain(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
    await this.flush().catch((error) => this.deps.log.warn("webhook deliverer final flush failed", { error: String(error) }));
  }

  private async maybePrune(): Promise<void> {
    const now = this.deps.clock.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    const removed = await repo.pruneFinished(this.deps.sql, new Date(now - KEEP_FINISHED_MS));
    if (removed) this.deps.log.debug("pruned webhook deliveries", { removed });
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
    this.loop = undefined;
  }
}

/** For `startWorkers`: returns the stop function (which drains in-flight attempts). */
export function startWebhookDeliverer(deps: Deps, options: DelivererOptions = {}): () => Promise<void> {
  const deliverer = new WebhookDeliverer(deps, options).start();
  return () => deliverer.stop();
}
