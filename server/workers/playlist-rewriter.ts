/**
 * The playlist rewriter: the jobs of 0017_playlist_rewrite.sql on the job runner
 * (runner.ts), one at a time. A job walks the videos in id order, rewriting the
 * playlists of those encoded before its authoring version (domains/encoding/rewrite.ts),
 * and records the last video done after each, so a worker that dies hands the rest to
 * the next one. A video whose files cannot be authored is left as it is (logged); an
 * outage fails the attempt, which is tried again after a backoff.
 */
import type { Deps } from "../deps.ts";
import * as repo from "../domains/encoding/repo.ts";
import type { PlaylistRewriteRow } from "../domains/encoding/repo.ts";
import { rewritePlaylists } from "../domains/encoding/rewrite.ts";
import { backfillOptions, leased } from "./leased.ts";
import { JobRunner, type JobQueue } from "./runner.ts";

export const MAX_ATTEMPTS = 5;
const BATCH = 20;

export function playlistRewriteQueue(deps: Deps): JobQueue<PlaylistRewriteRow> {
  return {
    name: "playlist rewriter",
    ...leased<PlaylistRewriteRow>(deps, "playlist_rewrites"),
    async run(job, { worker, signal }) {
      let after = job.after_video;
      for (;;) {
        const videos = await repo.videosToRewrite(deps.sql, after, job.version, BATCH);
        if (videos.length === 0) break;
        for (const video of videos) {
          if (signal.aborted) throw signal.reason ?? new Error("aborted");
          const { rewritten, skipped } = await rewritePlaylists(deps, video, job.version);
          after = video.id;
          if (!(await repo.advanceRewrite(deps.sql, job.id, worker, after, rewritten, skipped))) return;
        }
      }
      await repo.finishLeased(deps.sql, "playlist_rewrites", job.id, worker, "done");
      deps.log.info("playlist rewrite finished", { version: job.version, after_video: after });
    },
    fail: (job, worker, sentence) => repo.finishLeased(deps.sql, "playlist_rewrites", job.id, worker, "failed", sentence),
    sentence: (_job, error) => (error === undefined ? `The playlist rewriter stopped ${MAX_ATTEMPTS} times while working.` : String(error).slice(0, 1000)),
  };
}

const options = (pollMs?: number) => backfillOptions(MAX_ATTEMPTS, pollMs);

export function startPlaylistRewriter(deps: Deps, opts: { pollMs?: number } = {}): () => Promise<void> {
  const runner = new JobRunner(deps, playlistRewriteQueue(deps), options(opts.pollMs)).start();
  return () => runner.stop();
}

/** Claims one rewrite and runs it to its end; false when none was due (tests). */
export function runNextPlaylistRewrite(deps: Deps): Promise<boolean> {
  return new JobRunner(deps, playlistRewriteQueue(deps), options()).runNext();
}
