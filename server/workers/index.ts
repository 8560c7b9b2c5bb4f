/** Starts every background worker this process runs; returns their stop function. */
import type { Deps } from "../deps.ts";
import { coreSweeps, startSweeper } from "./sweeper.ts";
import { startEncoder } from "./encoder.ts";
import { startUploadSweeper } from "./upload-sweeper.ts";
import { sweepEventDedup } from "../modules/events/service.ts";
import { startWebhookDeliverer } from "./webhook-deliverer.ts";
import { startExportBuilder } from "./export-builder.ts";

export function startWorkers(deps: Deps): () => Promise<void> {
  const stops = [
    startSweeper(deps, { ...coreSweeps, event_dedup: sweepEventDedup }),
    startWebhookDeliverer(deps),
    startEncoder(deps),
    startUploadSweeper(deps),
    startExportBuilder(deps),
  ];
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
