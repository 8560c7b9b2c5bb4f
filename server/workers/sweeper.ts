/** Periodic clean-up of expired rows (at start, then every `everyMs`). Safe to run in any number of processes. */
import type { Deps } from "../deps.ts";
import { startLoop } from "./runner.ts";

export type Sweep = (deps: Deps) => Promise<number>;

export function startSweeper(deps: Deps, sweeps: Record<string, Sweep>, everyMs = 60_000): () => Promise<void> {
  const loop = startLoop(deps.log, { name: "sweeper", pollMs: everyMs }, async () => {
    for (const [name, sweep] of Object.entries(sweeps)) {
      try {
        const removed = await sweep(deps);
        if (removed) deps.log.debug("swept", { sweep: name, removed });
      } catch (error) {
        deps.log.warn("sweep failed", { sweep: name, error: String(error) });
      }
    }
    return false;
  });
  return () => loop.stop();
}
