/** Starts every background worker this process runs; returns their stop function. */
import type { Deps } from "../deps.ts";
import { coreSweeps, startSweeper } from "./sweeper.ts";

export function startWorkers(deps: Deps): () => Promise<void> {
  const stops = [startSweeper(deps, coreSweeps)];
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
