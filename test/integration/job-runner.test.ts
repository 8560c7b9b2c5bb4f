/**
 * The job runner's contract (server/workers/runner.ts), run over every queue it
 * serves, each with its real claim, lease, retry, fail and release SQL on a
 * database of its own (so no other test's rows are claimed). Only `run` is the
 * test's: it records each attempt and then succeeds, fails or hangs as told,
 * and on success writes what the real job writes when it is done.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Deps } from "../../server/deps.ts";
import type { Signal } from "../../server/lib/signal.ts";
import * as encodeRepo from "../../server/domains/encoding/repo.ts";
import { handToEncoder } from "../../server/domains/encoding/service.ts";
import * as exportRepo from "../../server/api/exports/repo.ts";
import { connectPostgres, migrate, type Sql } from "../../server/storage/postgres.ts";
import { encodeQueue } from "../../server/workers/encoder.ts";
import { exportQueue } from "../../server/workers/export-builder.ts";
import { type Job, type JobContext, type JobQueue, JobRunner, type RunnerOptions } from "../../server/workers/runner.ts";
import { testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { getEngines } from "../helpers/engines.ts";

type State = "queued" | "running" | "done" | "failed";

/** One kind of job as the suite sees it. */
interface Subject<J extends Job> {
  name: string;
  queue(deps: Deps): JobQueue<J>;
  wake(deps: Deps): Signal;
  /** Queues a job the way the product does; returns its id. */
  enqueue(): Promise<number>;
  read(id: number): Promise<{ state: State; attempts: number; error: string | null }>;
  /** What the real job writes when it is done (fenced by its claim). */
  complete(job: J, worker: string): Promise<void>;
}

let t: TestApp;
let ws: TestWorkspace;
let sql: Sql;
let drop: () => Promise<void>;

beforeAll(async () => {
  const db = await (await getEngines()).freshDatabase();
  drop = db.drop;
  sql = connectPostgres(db.url, { max: 4 });
  await migrate(sql);
  t = await testApp({ sql, config: { limits: { readsPerMinute: 100_000, writesPerMinute: 100_000 } } });
  ws = await t.workspace();
}, 60_000);

afterAll(async () => {
  await sql.end({ timeout: 2 }).catch(() => {});
  await drop();
});

const newVideo = async () => (await t.createVideo(ws, { title: "job" })).id;

const encoding: Subject<encodeRepo.EncodeJobRow> = {
  name: "encoder",
  queue: encodeQueue,
  wake: (deps) => deps.wake.encoder,
  async enqueue() {
    const videoId = await newVideo();
    const video = await sql.begin((tx) =>
      handToEncoder(tx, {
        workspaceId: ws.id,
        videoId,
        orientation: "landscape",
        sourceKey: `sources/${videoId}`,
        size: 1,
        filename: "a.mp4",
        uploadId: "flup_1",
      }),
    );
    return (video!.landscape_media as unknown as { job_id: number }).job_id;
  },
  async read(id) {
    const [row] = await sql<{ state: string; attempts: number; error: string | null }[]>`SELECT state, attempts, error FROM encode_jobs WHERE id = ${id}`;
    return { state: row!.state as State, attempts: row!.attempts, error: row!.error };
  },
  complete: (job, worker) => encodeRepo.finishJob(sql, job.id, worker, "done"),
};

const STATES: Record<string, State> = { pending: "queued", processing: "running", ready: "done", failed: "failed" };

const exporting: Subject<exportRepo.ExportRow> = {
  name: "export builder",
  queue: (deps) => exportQueue(deps),
  wake: (deps) => deps.wake.exports,
  async enqueue() {
    const res = await t.call("POST", "/api/v1/exports", {
      token: ws.token,
      body: { video_ids: [await newVideo()], from: "2026-01-01", to: "2026-01-02", format: "csv", type: "summary" },
    });
    const [row] = await sql<{ id: number }[]>`SELECT id FROM exports WHERE public_id = ${res.body.export_id}`;
    return row!.id;
  },
  async read(id) {
    const [row] = await sql<{ status: string; attempts: number; error: string | null }[]>`SELECT status, attempts, error FROM exports WHERE id = ${id}`;
    return { state: STATES[row!.status]!, attempts: row!.attempts, error: row!.error };
  },
  complete: async (job) => {
    await exportRepo.markReady(sql, job.id, job.attempts, { blobKey: "exports/contract.csv", rowCount: 0, byteSize: 0, at: new Date() });
  },
};

async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

const FAST: RunnerOptions = { pollMs: 20, leaseMs: 300, maxAttempts: 3 };

const SUBJECTS = [encoding, exporting] as unknown as Subject<Job>[];

describe.each(SUBJECTS.map((subject) => [subject.name, subject] as const))("job runner over the %s queue", (_name, subject) => {
  /** The subject's real queue with the test's `run`; every attempt is recorded. */
  const withRun = (attempts: Job[], run: (job: Job, context: JobContext) => Promise<void>): JobQueue<Job> => ({
    ...subject.queue(t.deps),
    run: (job, context) => {
      attempts.push(job);
      return run(job, context);
    },
  });
  const succeed = (job: Job, { worker }: JobContext) => subject.complete(job, worker);

  test("a job runs once, even with several runners claiming", async () => {
    const id = await subject.enqueue();
    const attempts: Job[] = [];
    const runners = [0, 1].map(() => new JobRunner(t.deps, withRun(attempts, succeed), { ...FAST, concurrency: 2 }).start());
    try {
      await until("done", async () => (await subject.read(id)).state === "done");
      await Bun.sleep(200);
    } finally {
      await Promise.all(runners.map((r) => r.stop()));
    }
    expect(attempts.filter((job) => job.id === id)).toHaveLength(1);
    expect(await subject.read(id)).toMatchObject({ state: "done", attempts: 1 });
  });

  test("a worker killed mid-job loses its lease; another takes the job over and finishes it; the dead one's late write changes nothing", async () => {
    const id = await subject.enqueue();
    const dead: Job[] = [];
    // A process that died: its job never ends and nothing it would write reaches the database.
    const gone = new JobRunner(
      t.deps,
      {
        ...withRun(dead, (_job, { signal }) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)))),
        renew: async () => true,
        release: async () => {},
        retry: async () => {},
        fail: async () => {},
      },
      { ...FAST, graceMs: 0 },
    ).start();
    const alive: Job[] = [];
    let survivor: JobRunner<Job> | undefined;
    try {
      await until("the first claim", async () => (await subject.read(id)).state === "running");
      survivor = new JobRunner(t.deps, withRun(alive, succeed), FAST).start();
      await until("done by the survivor", async () => (await subject.read(id)).state === "done");
      expect(dead.map((job) => job.id)).toEqual([id]);
      expect(alive.map((job) => job.id)).toEqual([id]);
      expect((await subject.read(id)).attempts).toBe(2);
      // Its first attempt's completion, arriving late, is fenced out.
      await subject.complete(dead[0]!, gone.worker);
      expect(await subject.read(id)).toMatchObject({ state: "done", attempts: 2 });
    } finally {
      await survivor?.stop();
      await gone.stop();
    }
  }, 20_000);

  test("a live worker renews its lease: a job running for several lease periods is claimed by no one else", async () => {
    const id = await subject.enqueue();
    const holder: Job[] = [];
    const others: Job[] = [];
    const slow = new JobRunner(
      t.deps,
      withRun(holder, async (job, context) => {
        await Bun.sleep(4 * FAST.leaseMs!);
        await succeed(job, context);
      }),
      FAST,
    ).start();
    let other: JobRunner<Job> | undefined;
    try {
      await until("the first claim", async () => (await subject.read(id)).state === "running");
      other = new JobRunner(t.deps, withRun(others, succeed), FAST).start();
      await until("done", async () => (await subject.read(id)).state === "done");
    } finally {
      await other?.stop();
      await slow.stop();
    }
    expect(holder.map((job) => job.id)).toEqual([id]);
    expect(others.filter((job) => job.id === id)).toEqual([]);
    expect((await subject.read(id)).attempts).toBe(1);
  });

  test("a job that keeps failing is retried, then ends failed with its sentence", async () => {
    const id = await subject.enqueue();
    const attempts: Job[] = [];
    const queue = withRun(attempts, async () => {
      throw new Error("the disk is full");
    });
    const runner = new JobRunner(t.deps, queue, FAST).start();
    try {
      await until("failed", async () => (await subject.read(id)).state === "failed");
    } finally {
      await runner.stop();
    }
    const mine = attempts.filter((job) => job.id === id);
    expect(mine.map((job) => job.attempts)).toEqual([1, 2, 3]);
    expect(await subject.read(id)).toEqual({ state: "failed", attempts: 3, error: queue.sentence(mine[2]!, new Error("the disk is full")) });
  });

  test("a failed attempt waits its backoff before the next", async () => {
    const id = await subject.enqueue();
    const at: number[] = [];
    const runner = new JobRunner(
      t.deps,
      withRun([], async (job, context) => {
        at.push(Date.now());
        if (job.attempts === 1) throw new Error("a passing outage");
        await succeed(job, context);
      }),
      { ...FAST, retryDelayMs: () => 600 },
    ).start();
    try {
      await until("queued again", async () => (await subject.read(id)).attempts === 1 && (await subject.read(id)).state === "queued");
      await until("done", async () => (await subject.read(id)).state === "done");
    } finally {
      await runner.stop();
    }
    expect(at).toHaveLength(2);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(550);
  });

  test("stop() waits for running jobs to finish, and then claims nothing more", async () => {
    const first = await subject.enqueue();
    let finished = false;
    const runner = new JobRunner(
      t.deps,
      withRun([], async (job, context) => {
        await Bun.sleep(400);
        await succeed(job, context);
        finished = true;
      }),
      FAST,
    ).start();
    await until("running", async () => (await subject.read(first)).state === "running");
    await runner.stop();
    expect(finished).toBe(true);
    expect((await subject.read(first)).state).toBe("done");
    const later = await subject.enqueue();
    await Bun.sleep(200);
    expect((await subject.read(later)).state).toBe("queued");
    await new JobRunner(t.deps, withRun([], succeed), FAST).runNext();
  });

  test("stop() after its grace aborts a job that does not finish and hands it back to the queue", async () => {
    const id = await subject.enqueue();
    const runner = new JobRunner(
      t.deps,
      withRun([], (_job, { signal }) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)))),
      { ...FAST, graceMs: 50 },
    ).start();
    await until("running", async () => (await subject.read(id)).state === "running");
    await runner.stop();
    expect((await subject.read(id)).state).toBe("queued");
    expect(await new JobRunner(t.deps, withRun([], succeed), FAST).runNext()).toBe(true);
    expect((await subject.read(id)).state).toBe("done");
  });

  test("work queued in this process wakes a sleeping runner at once", async () => {
    const runner = new JobRunner(t.deps, withRun([], succeed), { ...FAST, pollMs: 60_000, wake: [subject.wake(t.deps)] }).start();
    try {
      // Let it claim nothing and fall asleep for a minute.
      await Bun.sleep(100);
      const id = await subject.enqueue();
      subject.wake(t.deps).notify();
      await until("done", async () => (await subject.read(id)).state === "done", 3_000);
    } finally {
      await runner.stop();
    }
  });
});
