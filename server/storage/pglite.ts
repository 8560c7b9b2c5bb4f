/**
 * Embedded PostgreSQL: PGlite in DATA_DIR, served over the Postgres wire
 * protocol on a loopback port so postgres.js talks to it like to a server.
 * It runs on a worker thread of its own (pglite-worker.ts): PGlite executes
 * queries and writes its WAL synchronously, which on the main thread would stall
 * every HTTP request while a statement runs.
 *
 * The thread is supervised: when its engine breaks (pglite-worker.ts
 * `watchForBrokenEngine`) or the thread dies, a fresh one opens the same data
 * directory on the same port. Open connections fail (the statements in flight
 * answer as an outage and are retried by their callers); committed writes stay.
 */
import type { WorkerAnswer } from "./pglite-worker.ts";

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/** Attempts to bind the old port again while the dead thread's socket closes. */
const RESTART_ATTEMPTS = 20;
const RESTART_PAUSE_MS = 250;

interface Engine {
  worker: Worker;
  url: string;
  next(): Promise<WorkerAnswer>;
}

async function startEngine(dir: string, port: number): Promise<Engine> {
  const worker = new Worker(new URL("./pglite-worker.ts", import.meta.url).href);
  const next = () =>
    new Promise<WorkerAnswer>((resolve, reject) => {
      const onMessage = (event: MessageEvent<WorkerAnswer>) => {
        if ("broken" in event.data) return; // heard by the supervisor
        worker.removeEventListener("message", onMessage);
        worker.removeEventListener("error", onError);
        resolve(event.data);
      };
      const onError = (event: ErrorEvent) => {
        worker.removeEventListener("message", onMessage);
        reject(new Error(`embedded Postgres: ${event.message}`));
      };
      worker.addEventListener("message", onMessage);
      worker.addEventListener("error", onError, { once: true });
    });
  const started = next();
  worker.postMessage({ start: dir, port });
  const answer = await started.catch((error) => {
    worker.terminate();
    throw error;
  });
  if (!("url" in answer)) {
    worker.terminate();
    throw new Error(`embedded Postgres did not start: ${"error" in answer ? answer.error : "no answer"}`);
  }
  // The database never holds the process open by itself: whoever started it stops it.
  (worker as Worker & { unref(): void }).unref();
  return { worker, url: answer.url, next };
}

/** `onCrash` hears of each time the database's thread had to be replaced, and why. */
export async function startEmbeddedPostgres(
  dir: string,
  onCrash: (message: string) => void = (m) => console.error(`embedded Postgres restarted: ${m}`),
): Promise<EmbeddedPostgres> {
  let engine = await startEngine(dir, 0);
  const url = engine.url;
  const port = Number(new URL(url).port);
  let stopping: Promise<void> | undefined;
  let restarting: Promise<void> | undefined;

  const restart = (reason: string) => {
    if (stopping || restarting) return;
    onCrash(reason);
    const broken = engine;
    restarting = (async () => {
      broken.worker.terminate();
      for (let attempt = 1; !stopping; attempt++) {
        try {
          engine = await startEngine(dir, port);
          supervise(engine);
          return;
        } catch (error) {
          if (attempt >= RESTART_ATTEMPTS) {
            onCrash(`could not start again: ${error instanceof Error ? error.message : String(error)}`);
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, RESTART_PAUSE_MS));
        }
      }
    })().finally(() => {
      restarting = undefined;
    });
  };
  const supervise = (e: Engine) => {
    e.worker.addEventListener("message", (event: MessageEvent<WorkerAnswer>) => {
      if ("broken" in event.data) restart(event.data.broken);
    });
    e.worker.addEventListener("error", (event) => restart(event.message));
  };
  supervise(engine);

  return {
    url,
    stop() {
      stopping ??= (async () => {
        await restarting;
        const stopped = engine.next();
        engine.worker.postMessage({ stop: true });
        await Promise.race([stopped.catch(() => {}), new Promise((resolve) => setTimeout(resolve, 5_000))]);
        engine.worker.terminate();
      })();
      return stopping;
    },
  };
}
