/**
 * Builds pending exports one at a time and expires old ones. Any number of these may
 * run (in the server process or in `npm run worker`): exports are claimed with
 * FOR UPDATE SKIP LOCKED. Stopping waits for the export being built (drain).
 */
import type { Deps } from "../deps.ts";
import { processNextExport, sweepExpiredExports } from "../modules/exports/service.ts";

export interface ExportBuilderOptions {
  /** How often to look for work when nothing woke the builder. */
  pollMs?: number;
  /** How often to delete expired exports and their files. */
  sweepEveryMs?: number;
}

export function startExportBuilder(deps: Deps, opts: ExportBuilderOptions = {}): () => Promise<void> {
  const pollMs = opts.pollMs ?? 2_000;
  const sweepEveryMs = opts.sweepEveryMs ?? 10 * 60_000;
  let stopping = false;
  let lastSweep = 0;
  // An export queued while the builder is busy (not sleeping) must not wait for the next poll.
  const listener = deps.wake.exports.listen();
  const sleep = (ms: number) => listener.wait(ms);

  const loop = (async () => {
    while (!stopping) {
      try {
        if (Date.now() - lastSweep >= sweepEveryMs) {
          lastSweep = Date.now();
          const removed = await sweepExpiredExports(deps);
          if (removed) deps.log.debug("swept", { sweep: "exports", removed });
        }
        // Drain the queue, but stop between exports when asked to.
        while (!stopping && (await processNextExport(deps)));
      } catch (error) {
        deps.log.warn("export builder failed", { error: String(error) });
      }
      if (!stopping) await sleep(pollMs);
    }
  })();

  return async () => {
    stopping = true;
    listener.close();
    await loop;
  };
}
