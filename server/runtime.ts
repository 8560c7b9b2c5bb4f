/**
 * One process of Frameline: the engines and per-process state (`createDeps`)
 * and, when asked, the background workers. `close()` stops all of it in one
 * written order, so neither `main.ts` nor `worker.ts` can forget a step:
 * the workers first (each lets its running jobs finish or hands them back),
 * then `deps.close()` (ingest drained, listeners and engines closed).
 */
import type { Config } from "./config.ts";
import { createDeps, type Deps, type DepsOverrides } from "./deps.ts";
import { startWorkers } from "./workers/index.ts";

export interface Runtime {
  deps: Deps;
  close(): Promise<void>;
}

export async function createRuntime(config: Config, options: { workers: boolean }, overrides: DepsOverrides = {}): Promise<Runtime> {
  const deps = await createDeps(config, overrides);
  const stopWorkers = options.workers ? startWorkers(deps) : undefined;
  let closing: Promise<void> | undefined;
  return {
    deps,
    close() {
      closing ??= (async () => {
        await stopWorkers?.();
        await deps.close();
      })();
      return closing;
    },
  };
}
