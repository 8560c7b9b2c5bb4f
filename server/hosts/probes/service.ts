/**
 * What the operator's probes answer (README "Probes and metrics"): whether this
 * process can serve, engine by engine (`GET /ready`), and the Prometheus text with
 * the readings PostgreSQL holds (`GET /metrics`). Every engine call here is cheap and
 * bounded by `CHECK_TIMEOUT_MS`, so a probe answers within it whatever hangs.
 */
import type { Deps } from "../../deps.ts";
import type { Readings } from "../../http/metrics.ts";
import type { SpoolDepth } from "../../ingest/spool.ts";
import { errorCode } from "../../lib/error-code.ts";
import { readBacklog } from "./repo.ts";

/** A load balancer polls every few seconds and wants its answer sooner than that. */
export const CHECK_TIMEOUT_MS = 2_000;
/** A burst of probes (several balancers, several processes' health checks) costs the engines one check a second. */
export const READY_CACHE_MS = 1_000;
/** Listed to see that the store answers: no key is ever written under it, so the listing is empty and cheap. */
const PROBE_PREFIX = "ready-probe";

export type Engine = "postgres" | "clickhouse" | "blobs";
export type ProbeDeps = Pick<Deps, "sql" | "ch" | "blobs" | "ingest" | "log" | "metrics">;

export interface Readiness {
  ready: boolean;
  checks: Record<Engine, string>;
  spool: SpoolDepth;
}

class TimedOut extends Error {}

/** `run`'s result, or a TimedOut after `ms` (with `signal` aborted, for calls that can stop early). */
async function within<T>(ms: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new TimedOut(`no answer within ${ms} ms`);
      abort.abort(error);
      reject(error);
    }, ms);
  });
  try {
    return await Promise.race([run(abort.signal), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Failures that mean "cannot reach it" rather than "it answered no" (postgres.js, Bun's sockets, the DNS). */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EPIPE",
  "ConnectionRefused",
  "ConnectionClosed",
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "CONNECT_TIMEOUT",
]);

/**
 * Why a check failed, by code or name only: `/ready` needs no token, and an error's
 * message may name hosts, paths or buckets.
 */
export function reasonOf(error: unknown): string {
  if (error instanceof TimedOut) return "timeout";
  const code = errorCode(error);
  if (code !== undefined && UNREACHABLE.has(code)) return `unreachable: ${code}`;
  // ClickHouse names its refusals (UNKNOWN_DATABASE); S3 its errors (NoSuchBucket, AccessDenied).
  const type = (error as { type?: unknown } | null)?.type;
  const name = error instanceof Error && error.name !== "Error" ? error.name : undefined;
  return `error: ${typeof type === "string" ? type : (code ?? name ?? "failed")}`;
}

async function first(items: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of items) return;
}

/** One cheap call per engine; each may give up early when its signal aborts. */
const CHECKS: Record<Engine, (deps: ProbeDeps, signal: AbortSignal) => Promise<unknown>> = {
  async postgres({ sql }, signal) {
    const query = sql`SELECT 1`;
    // A query still waiting for a connection leaves the pool's queue, so a hung server gets no pile of probes.
    signal.addEventListener("abort", () => query.cancel(), { once: true });
    return query;
  },
  async clickhouse({ ch }, signal) {
    const result = await ch.query({ query: "SELECT 1", format: "JSONEachRow", abort_signal: signal });
    return result.text();
  },
  // The fs store makes sure its root exists and reads its volume (freeBytes); the S3 store lists its bucket.
  blobs: ({ blobs }) => Promise.all([blobs.media.freeBytes(), first(blobs.media.list(PROBE_PREFIX))]),
};

const ENGINES = Object.keys(CHECKS) as Engine[];

/**
 * `GET /ready` of one app: its checks run at once, each within `CHECK_TIMEOUT_MS`; an answer
 * is kept `READY_CACHE_MS` after it settled (probes meanwhile share it), and a check an earlier
 * probe left hanging is joined rather than started again.
 */
export class ReadinessProbe {
  private answer: Promise<Readiness> | undefined;
  /** When `answer` settled (performance.now()); Infinity while it runs. */
  private settledAt = Number.NEGATIVE_INFINITY;
  private readonly hanging = new Map<Engine, Promise<unknown>>();

  constructor(private readonly deps: ProbeDeps) {}

  check(): Promise<Readiness> {
    if (this.answer && performance.now() - this.settledAt < READY_CACHE_MS) return this.answer;
    this.settledAt = Number.POSITIVE_INFINITY;
    this.answer = this.run().finally(() => (this.settledAt = performance.now()));
    return this.answer;
  }

  private async run(): Promise<Readiness> {
    const spool = this.deps.ingest.spool;
    const [results, depth] = await Promise.all([
      Promise.all(ENGINES.map((engine) => this.checkOne(engine))),
      within(CHECK_TIMEOUT_MS, () => spool.refresh()).catch(() => spool.depth),
    ]);
    const checks = Object.fromEntries(ENGINES.map((engine, i) => [engine, results[i]!])) as Record<Engine, string>;
    return { ready: results.every((result) => result === "ok"), checks, spool: depth };
  }

  private async checkOne(engine: Engine): Promise<string> {
    try {
      await within(CHECK_TIMEOUT_MS, (signal) => {
        let call = this.hanging.get(engine);
        if (!call) {
          call = CHECKS[engine](this.deps, signal);
          this.hanging.set(engine, call);
          const forget = () => this.hanging.delete(engine);
          call.then(forget, forget);
        }
        return call;
      });
      return "ok";
    } catch (error) {
      return reasonOf(error);
    }
  }
}

/** The text of `/metrics`: the readings PostgreSQL holds, each within `CHECK_TIMEOUT_MS`, then the registry. */
export async function scrape(deps: ProbeDeps): Promise<string> {
  const failed = (reading: string) => (error: unknown) => {
    deps.log.warn("metrics: a reading failed; its gauges are left out of this scrape", { reading, error: reasonOf(error) });
    return undefined;
  };
  const [spool, backlog] = await Promise.all([
    within(CHECK_TIMEOUT_MS, () => deps.ingest.spool.refresh()).catch(failed("spool")),
    within(CHECK_TIMEOUT_MS, () => readBacklog(deps.sql)).catch(failed("backlog")),
  ]);
  const readings: Readings = { spool, ...backlog };
  return deps.metrics.render(readings);
}
