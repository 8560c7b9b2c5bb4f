/**
 * What `/metrics` answers (README "Probes and metrics"): one prom-client Registry per
 * process, built in runtime.ts and carried in `Deps` (two apps in one test process never
 * share a count), with prom-client's default process metrics, the request counter and
 * histogram, and Frameline's own `frameline_*` series.
 *
 * What happens in this process is counted as it happens, through small methods that the
 * request hook, the ingest batchers, the job runner and the webhook deliverer call. What
 * lives in PostgreSQL (jobs waiting, the webhook backlog, the spool's depth) is read once
 * per scrape by the caller of `render` and handed in as `Readings`.
 */
import { Elysia, StatusMap } from "elysia";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** Seconds: a cached read takes about a millisecond, an upload chunk or a deploy seconds. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Rows per INSERT: one under light load, up to INGEST_MAX_ROWS (5,000 by default) under heavy load. */
const BATCH_ROWS_BUCKETS = [1, 5, 10, 50, 100, 500, 1_000, 2_500, 5_000, 10_000];
const INSERT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds: a short clip repackaged in one, an hour of 1080p re-encoded in many minutes. */
const ENCODE_BUCKETS = [1, 5, 10, 30, 60, 120, 300, 600, 1_200, 3_600];

/** Any other method a client makes up is one label value, so a client cannot grow the series. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/** A request no route matched (a 404, or one refused before routing): never its raw URL. */
export const UNMATCHED = "unmatched";

/** What PostgreSQL holds, read at scrape time; a reading that failed is left out (its gauges are then absent). */
export interface Readings {
  spool?: { batches: number; rows: number; refused: number };
  jobs?: readonly { kind: string; queued: number; running: number }[];
  webhooks?: { outbox: number; deliveries: number };
}

export class Metrics {
  readonly registry = new Registry();
  /** Requests by `method route status`: counted on the hot path, turned into samples when scraped. */
  private readonly requestSeries = new RequestSeries(REQUEST_BUCKETS);

  private readonly ingestRows = this.counter("frameline_ingest_rows_total", "Event rows this process wrote to ClickHouse, by table.", ["table"]);
  private readonly ingestBatchRows = this.histogram(
    "frameline_ingest_batch_rows",
    "Rows per INSERT the batchers sent, by table.",
    ["table"],
    BATCH_ROWS_BUCKETS,
  );
  private readonly ingestInsertSeconds = this.histogram(
    "frameline_ingest_insert_duration_seconds",
    "Time ClickHouse took to take a batch, by table (INSERTs that succeeded).",
    ["table"],
    INSERT_BUCKETS,
  );
  private readonly ingestFailures = this.counter(
    "frameline_ingest_insert_failures_total",
    "INSERTs ClickHouse did not take, by table and outcome: spooled (kept in PostgreSQL, answered as accepted) or failed (its requests refused).",
    ["table", "outcome"],
  );
  private readonly countSpooled = this.batchAndRowCounters("spooled", "this process kept in the spool while ClickHouse was away");
  private readonly countReplayed = this.batchAndRowCounters("replayed", "of the spool this process replayed into ClickHouse");
  private readonly refusedBatches = this.counter(
    "frameline_ingest_refused_batches_total",
    "Spooled batches ClickHouse refused for their rows when replayed (kept for an operator, not replayed again), by table.",
    ["table"],
  );
  /** The spool's depth (the whole deployment's, read from PostgreSQL); past INGEST_SPOOL_MAX_ROWS rows, events are refused with 503. */
  private readonly spoolDepth = {
    batches: this.gauge("frameline_ingest_spool_batches", "Batches waiting in the spool for ClickHouse."),
    rows: this.gauge("frameline_ingest_spool_rows", "Rows waiting in the spool for ClickHouse."),
    refused: this.gauge("frameline_ingest_spool_refused_batches", "Spooled batches ClickHouse refused, kept in the spool for an operator."),
  };

  private readonly jobsQueued = this.gauge("frameline_jobs_queued", "Jobs waiting for a worker, by kind (the whole deployment's, read from PostgreSQL).", [
    "kind",
  ]);
  private readonly jobsRunning = this.gauge("frameline_jobs_running", "Jobs a worker holds, by kind (the whole deployment's, read from PostgreSQL).", ["kind"]);
  private readonly jobAttempts = this.counter(
    "frameline_job_attempts_total",
    "Job attempts this process ended, by kind and outcome (done, retried, failed, released, lease_lost).",
    ["kind", "outcome"],
  );
  private readonly encodeSeconds = this.histogram(
    "frameline_encode_duration_seconds",
    "Time an encode attempt ran in this process, by outcome.",
    ["outcome"],
    ENCODE_BUCKETS,
  );

  private readonly webhookBacklog = this.gauge(
    "frameline_webhook_backlog",
    "Webhook work waiting: outbox events not yet fanned out (outbox) and deliveries not yet delivered (deliveries).",
    ["queue"],
  );
  private readonly webhookFailures = this.counter(
    "frameline_webhook_delivery_failures_total",
    "Failed webhook delivery attempts of this process, by outcome: retry (tried again later) or gave_up (the last attempt, or 410 Gone).",
    ["outcome"],
  );

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.requestSeries.register(this.registry, {
      counter: ["http_requests_total", "HTTP requests answered, by method, route pattern and status."],
      histogram: ["http_request_duration_seconds", "Time from a request's arrival to its answer, by method, route pattern and status."],
    });
  }

  private counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
    return new Counter<L>({ name, help, labelNames, registers: [this.registry] });
  }

  private gauge<L extends string = never>(name: string, help: string, labelNames: L[] = []): Gauge<L> {
    return new Gauge<L>({ name, help, labelNames, registers: [this.registry] });
  }

  private histogram<L extends string>(name: string, help: string, labelNames: L[], buckets: number[]): Histogram<L> {
    return new Histogram<L>({ name, help, labelNames, buckets, registers: [this.registry] });
  }

  /** `frameline_ingest_<verb>_batches_total` and `…_rows_total` by table, counted together. */
  private batchAndRowCounters(verb: string, what: string): (table: string, rows: number) => void {
    const batches = this.counter(`frameline_ingest_${verb}_batches_total`, `Batches ${what}, by table.`, ["table"]);
    const rows = this.counter(`frameline_ingest_${verb}_rows_total`, `Rows ${what}, by table.`, ["table"]);
    return (table, n) => {
      batches.inc({ table });
      rows.inc({ table }, n);
    };
  }

  /** One answered request: the hot path, so a series is found by one string key and counted in place. */
  request(method: string, route: string | undefined, status: number, seconds: number): void {
    const verb = METHODS.has(method) ? method : "OTHER";
    this.requestSeries.observe(verb, route || UNMATCHED, status, seconds);
  }

  /** A batch's INSERT ended (ingest/batcher.ts): written, kept in the spool, or failed. */
  inserted(table: string, rows: number, seconds: number, outcome: string): void {
    this.ingestBatchRows.observe({ table }, rows);
    if (outcome === "written") {
      this.ingestRows.inc({ table }, rows);
      this.ingestInsertSeconds.observe({ table }, seconds);
      return;
    }
    this.ingestFailures.inc({ table, outcome });
    if (outcome === "spooled") this.countSpooled(table, rows);
  }

  /** The spool replayed a batch into ClickHouse (ingest/spool.ts). */
  replayed(table: string, rows: number): void {
    this.countReplayed(table, rows);
  }

  /** ClickHouse refused a spooled batch for its rows (ingest/spool.ts). */
  refused(table: string): void {
    this.refusedBatches.inc({ table });
  }

  /** A job attempt ended (workers/runner.ts). */
  jobAttempt(kind: string, outcome: string): void {
    this.jobAttempts.inc({ kind, outcome });
  }

  encodeAttempt(outcome: string, seconds: number): void {
    this.encodeSeconds.observe({ outcome }, seconds);
  }

  webhookFailed(outcome: "retry" | "gave_up"): void {
    this.webhookFailures.inc({ outcome });
  }

  /** The text format, with the gauges set from `readings` (a gauge whose reading is missing is left empty, not stale). */
  async render(readings: Readings): Promise<string> {
    for (const [reading, gauge] of Object.entries(this.spoolDepth)) setOrReset(gauge, readings.spool?.[reading as keyof typeof this.spoolDepth]);
    this.jobsQueued.reset();
    this.jobsRunning.reset();
    for (const { kind, queued, running } of readings.jobs ?? []) {
      this.jobsQueued.set({ kind }, queued);
      this.jobsRunning.set({ kind }, running);
    }
    this.webhookBacklog.reset();
    if (readings.webhooks) {
      this.webhookBacklog.set({ queue: "outbox" }, readings.webhooks.outbox);
      this.webhookBacklog.set({ queue: "deliveries" }, readings.webhooks.deliveries);
    }
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

function setOrReset(gauge: Gauge, value: number | undefined): void {
  if (value === undefined) gauge.reset();
  else gauge.set(value);
}

/** An answer's status as Elysia leaves it: a number, or one of its status names. */
function statusOf(status: number | string | undefined, response: unknown): number {
  if (response instanceof Response) return response.status;
  if (typeof status === "number") return status;
  if (status === undefined) return 200;
  return (StatusMap as Record<string, number>)[status] ?? 200;
}

/**
 * The request counter and histogram, for every route of the app (use it first, so the clock
 * starts before any other hook). The route label is the matched pattern (`/api/v1/videos/:video`),
 * which keeps the series bounded whatever URLs arrive. A handler's answer is counted after it
 * returns (onAfterHandle: Elysia defers each onAfterResponse hook past the answer, which cost as
 * much as the whole of a cached video read); a refusal is counted by the errors plugin through
 * `refused`. A request is counted once, at its first outcome.
 */
export function requestMetrics(metrics: Metrics) {
  const started = new WeakMap<Request, number>();
  const answered = (request: Request, route: string | undefined, status: number) => {
    const at = started.get(request);
    if (at === undefined) return;
    started.delete(request);
    metrics.request(request.method, route, status, (performance.now() - at) / 1000);
  };
  const plugin = new Elysia({ name: "frameline.request-metrics" })
    .onRequest(({ request }) => {
      started.set(request, performance.now());
    })
    .onAfterHandle({ as: "global" }, ({ request, route, set, responseValue }) => {
      answered(request, route, statusOf(set.status, responseValue));
    });
  return { plugin, refused: answered };
}

interface Series {
  labels: { method: string; route: string; status: string };
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

/** A sample as prom-client's registry renders it. */
interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/**
 * The request counter and histogram as one table of series. prom-client's Histogram hashes
 * the labels of every observation (about half a microsecond, a tenth of a cached read); here
 * a request costs one Map lookup and three increments, and the samples are built per scrape
 * in the shape prom-client's registry renders (`registerMetric` takes any object with `get`).
 */
export class RequestSeries {
  private readonly series = new Map<string, Series>();

  constructor(private readonly bounds: readonly number[]) {}

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let s = this.series.get(key);
    if (!s) {
      s = { labels: { method, route, status: String(status) }, buckets: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    let i = 0;
    while (i < this.bounds.length && seconds > this.bounds[i]!) i++;
    s.buckets[i]!++;
    s.sum += seconds;
    s.count++;
  }

  /** Registers the counter and the histogram, each a `[name, help]`. */
  register(registry: Registry, names: { counter: [string, string]; histogram: [string, string] }): void {
    const [counter, counterHelp] = names.counter;
    const [histogram, histogramHelp] = names.histogram;
    this.registerAs(registry, counter, counterHelp, "counter", (s) => [{ labels: s.labels, value: s.count }]);
    this.registerAs(registry, histogram, histogramHelp, "histogram", (s) => {
      const name = histogram;
      const samples: Sample[] = [];
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += s.buckets[i]!;
        samples.push({ labels: { ...s.labels, le }, value: cumulative, metricName: `${name}_bucket` });
      });
      samples.push({ labels: { ...s.labels, le: "+Inf" }, value: s.count, metricName: `${name}_bucket` });
      samples.push({ labels: s.labels, value: s.sum, metricName: `${name}_sum` });
      samples.push({ labels: s.labels, value: s.count, metricName: `${name}_count` });
      return samples;
    });
  }

  private registerAs(registry: Registry, name: string, help: string, type: "counter" | "histogram", samples: (s: Series) => Sample[]): void {
    const metric = {
      name,
      help,
      type,
      aggregator: "sum",
      get: async () => ({ name, help, type, aggregator: "sum", values: [...this.series.values()].flatMap(samples) }),
      reset: () => this.series.clear(),
    };
    // The registry's type names prom-client's own classes; it reads only the fields above.
    registry.registerMetric(metric as unknown as Histogram);
  }
}
