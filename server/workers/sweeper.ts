/** Periodic clean-up of expired rows. Safe to run in any number of processes. */
import type { Deps } from "../deps.ts";
import { sweepIdempotencyKeys } from "../http/idempotency.ts";

export type Sweep = (deps: Deps) => Promise<number>;

export function startSweeper(deps: Deps, sweeps: Record<string, Sweep>, everyMs = 60_000): () => Promise<void> {
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= (async () => {
      for (const [name, sweep] of Object.entries(sweeps)) {
        try {
          const removed = await sweep(deps);
          if (removed) deps.log.debug("swept", { sweep: name, removed });
        } catch (error) {
          deps.log.warn("sweep failed", { sweep: name, error: String(error) });
        }
      }
    })().finally(() => (running = undefined));
  };
  const timer = setInterval(tick, everyMs);
  timer.unref?.();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

export const coreSweeps: Record<string, Sweep> = { idempotency_keys: sweepIdempotencyKeys };
