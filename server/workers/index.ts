/** Starts every background worker this process runs; returns their stop function (each drains what it runs). */
import type { Deps } from "../deps.ts";
import { sweepIdempotencyKeys } from "../http/idempotency.ts";
import { sweepEventDedup } from "../hosts/events/service.ts";
import { sweepExpiredExports } from "../api/exports/service.ts";
import { sweepExpiredUploads } from "../api/uploads/service.ts";
import { evaluateSplitTests } from "../api/split-tests/report.ts";
import { sweepAccounts } from "../domains/accounts/service.ts";
import { sealRollups } from "../api/analytics/rollups.ts";
import { startEncoder } from "./encoder.ts";
import { startExportBuilder } from "./export-builder.ts";
import { startPlaylistRewriter } from "./playlist-rewriter.ts";
import { startPrivateMover } from "./private-mover.ts";
import { startEncryptor } from "./encryptor.ts";
import { startSweeper } from "./sweeper.ts";
import { startWebhookDeliverer } from "./webhook-deliverer.ts";

export function startWorkers(deps: Deps): () => Promise<void> {
  const stops = [
    startSweeper(deps, {
      idempotency_keys: sweepIdempotencyKeys,
      event_dedup: sweepEventDedup,
      // docs/api.md "Upload session": 24 hours after init its chunks are discarded.
      upload_sessions: sweepExpiredUploads,
      // Exports past their retention go, file first.
      exports: sweepExpiredExports,
      // The split-test winner rule, over every running test without a winner (at most a minute late).
      split_tests: evaluateSplitTests,
      // Dashboard sessions past their 7 days, invites past theirs, sign-in back-off rows quiet for a day.
      accounts: sweepAccounts,
      // Hours over by an hour become rollups; hours that got rows since are sealed again (README "How fresh, how exact").
      analytics_rollups: sealRollups,
    }),
    startWebhookDeliverer(deps),
    startEncoder(deps),
    startExportBuilder(deps),
    startPlaylistRewriter(deps),
    startPrivateMover(deps),
    startEncryptor(deps),
  ];
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
