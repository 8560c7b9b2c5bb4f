/**
 * Publishing a video's player: the server half of a deploy (docs/api.md "Video
 * settings" rules 7-8, "Status object"). It decides which video and which
 * settings, holds the row lock, looks up the workspace code and the playlist
 * items' media, then hands a finished config to the compiler, which builds
 * and pushes to both CDN targets and knows nothing of the database.
 *
 * @example
 *   // in the encoder, once every orientation is ready
 *   await publishVideo(deps, video.workspace_id, video.id);
 */
import type { Deps } from "../../deps.ts";
import type { Db } from "../../storage/postgres.ts";
import {
  compilePlayer,
  DEFAULT_SOURCES,
  featureFlags,
  playerConfig,
  playlistCodes,
  publishSplitTest,
  pushPlayer,
  splitTestKey,
  entryKey,
  type EntryPush,
  type PlayerSources,
  type SplitTestEmbed,
} from "../../../compiler/index.ts";
import { withDefaults, type Settings } from "../../../contract/settings.ts";
import type { PlaybackGuard } from "../../../contract/player-config.ts";
import { lockVideo } from "../../api/videos/repo.ts";
import type { VideoRow } from "../../api/videos/repo.ts";
import * as repo from "./repo.ts";
import { entryChanged } from "../../storage/entry-cache.ts";

export interface Publication extends EntryPush {
  versionHash: string;
}

/** What this process compiles: `config.playerSources` (tests point it at a fixture player), else player/. */
function playerSources(deps: Pick<Deps, "config">): PlayerSources {
  return deps.config.playerSources ?? DEFAULT_SOURCES;
}

/**
 * Compiles `settings` for `video` and pushes the result to both CDN targets.
 * Throws (and leaves the previous entry serving) when the build or either push
 * fails. The returned `rollback` restores the previous entry, for a caller
 * whose own later step (its transaction) failed.
 */
export async function compileAndPush(deps: Deps, db: Db, video: VideoRow, settings: Settings): Promise<Publication> {
  const flags = featureFlags(settings);
  const [workspaceCode, itemMedia, splitTestCode] = await Promise.all([
    repo.workspaceCode(db, video.workspace_id),
    flags.playlist ? repo.itemMedia(db, video.workspace_id, playlistCodes(settings)) : Promise.resolve([]),
    repo.liveTestCodeOfControl(db, video.workspace_id, video.id),
  ]);
  if (workspaceCode === undefined) throw new Error(`workspace ${video.workspace_id} not found`);
  // Keys, not URLs: the player resolves them against where its script was served (player/locate.ts).
  const config = playerConfig({ video, workspaceCode, settings, flags, itemMedia });
  const player = await compilePlayer({
    config,
    flags,
    sources: playerSources(deps),
    // The control of a split test that is not ended: its embed serves the test.
    splitTest: splitTestCode ? splitTestEmbed(workspaceCode, splitTestCode, video.code) : null,
    protection: playbackGuard(video),
  });
  const push = await pushPlayer([deps.blobs.cdnA, deps.blobs.cdnB], player);
  await entryChanged(deps, player.entryKey);
  return { versionHash: player.versionHash, rollback: () => push.rollback().finally(() => entryChanged(deps, player.entryKey)) };
}

/** A protected video's rules for its entry; null for a public one (rows read before 0018 lack the columns). */
function playbackGuard(video: VideoRow): PlaybackGuard | null {
  const allowed = video.allowed_origins ?? [];
  const signed = video.require_signed_urls === true;
  return allowed.length > 0 || signed ? { allowed_origins: allowed, signed } : null;
}

/**
 * What a split test's scripts need to serve it (player/split-test.ts): nothing
 * about the deployment, the control's script named beside the test's own.
 */
export function splitTestEmbed(workspaceCode: string, testCode: string, controlCode: string): SplitTestEmbed {
  return { code: testCode, workspace_code: workspaceCode, control: { code: controlCode, script_url: `../${entryKey(controlCode)}` } };
}

/** Builds a split test's own snippet script and pushes it to both targets (all or nothing). */
export async function publishSplitTestScript(deps: Deps, db: Db, workspaceId: number, testCode: string, controlCode: string): Promise<EntryPush> {
  const workspaceCode = await repo.workspaceCode(db, workspaceId);
  if (workspaceCode === undefined) throw new Error(`workspace ${workspaceId} not found`);
  const push = await publishSplitTest([deps.blobs.cdnA, deps.blobs.cdnB], splitTestEmbed(workspaceCode, testCode, controlCode), playerSources(deps));
  await entryChanged(deps, splitTestKey(testCode));
  return { rollback: () => push.rollback().finally(() => entryChanged(deps, splitTestKey(testCode))) };
}

/**
 * Compiles a video's live settings and pushes its player to both targets (the
 * encoder calls this when a video becomes ready). Playlists that list the video
 * are republished too, best effort, so their items pick up its new media.
 * Throws when the video is unknown or the compile or a push fails.
 */
export async function publishVideo(deps: Deps, workspaceId: number, videoId: number): Promise<{ versionHash: string }> {
  // The row lock orders this against a concurrent deploy, so the bundle that
  // ends up live is the one of the settings that ended up live.
  const { versionHash, code } = await deps.sql.begin(async (tx) => {
    const video = await lockVideo(tx, workspaceId, videoId);
    if (!video) throw new Error(`video ${videoId} not found in workspace ${workspaceId}`);
    const published = await compileAndPush(deps, tx, video, withDefaults(video.settings));
    return { versionHash: published.versionHash, code: video.code };
  });
  for (const container of await repo.containersOf(deps.sql, workspaceId, code, videoId)) {
    await compileAndPush(deps, deps.sql, container, withDefaults(container.settings)).catch((error) =>
      deps.log.warn("playlist container republish failed", { video_id: container.id, error: String(error) }),
    );
  }
  return { versionHash };
}
