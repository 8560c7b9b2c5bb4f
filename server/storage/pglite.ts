/**
 * Embedded PostgreSQL: PGlite in DATA_DIR, served over the Postgres wire
 * protocol on a loopback port so postgres.js talks to it like to a server.
 * It runs on a worker thread of its own (pglite-worker.ts): PGlite executes
 * queries and writes its WAL synchronously, which on the main thread would stall
 * every HTTP request while a statement runs.
 */
export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

type WorkerAnswer = { url: string } | { error: string } | { stopped: true };

/** `onCrash` hears of an error that ends the database's thread after it started (queries then fail to connect). */
export async function startEmbeddedPostgres(
  dir: string,
  onCrash: (message: string) => void = (m) => console.error(`embedded Postgres stopped: ${m}`),
): Promise<EmbeddedPostgres> {
  const worker = new Worker(new URL("./pglite-worker.ts", import.meta.url).href);
  const next = () =>
    new Promise<WorkerAnswer>((resolve, reject) => {
      const onMessage = (event: MessageEvent<WorkerAnswer>) => {
        worker.removeEventListener("error", onError);
        resolve(event.data);
      };
      const onError = (event: ErrorEvent) => {
        worker.removeEventListener("message", onMessage);
        reject(new Error(`embedded Postgres: ${event.message}`));
      };
      worker.addEventListener("message", onMessage, { once: true });
      worker.addEventListener("error", onError, { once: true });
    });
  const started = next();
  worker.postMessage({ start: dir });
  const answer = await started.catch((error) => {
    worker.terminate();
    throw error;
  });
  if (!("url" in answer)) {
    worker.terminate();
    throw new Error(`embedded Postgres did not start: ${"error" in answer ? answer.error : "no answer"}`);
  }
  worker.addEventListener("error", (event) => onCrash(event.message));
  // The database never holds the process open by itself: whoever started it stops it.
  (worker as Worker & { unref(): void }).unref();
  let stopping: Promise<void> | undefined;
  return {
    url: answer.url,
    stop() {
      stopping ??= (async () => {
        const stopped = next();
        worker.postMessage({ stop: true });
        await stopped.catch(() => {});
        worker.terminate();
      })();
      return stopping;
    },
  };
}
