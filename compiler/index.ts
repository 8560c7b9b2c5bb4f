/**
 * The player compiler: turns a video's live settings into its bundle on both
 * CDN targets. The stable `script_url` (`/cdn/p/<code>.js`) is the per-video
 * entry; it loads a shared, content-hashed core.
 *
 * @example
 *   // after encoding finishes, make the player live with the current settings
 *   const { versionHash } = await publishVideo(deps, workspaceId, videoId);
 */
import { createHash } from "node:crypto";
import type { Deps } from "../server/deps.ts";
import type { Sql, TxSql } from "../server/storage/postgres.ts";
import { withDefaults, type Settings } from "../server/modules/settings/groups.ts";
import type { VideoRow } from "../server/modules/videos/repo.ts";
import { buildEntry, coreFor, DEFAULT_SOURCES, type PlayerSources } from "./build.ts";
import { featureFlags, playerConfig, playlistCodes, type ItemMedia } from "./config.ts";
import { pushEntry, pushImmutable, type EntryPush } from "./push.ts";

export { DEFAULT_SOURCES, type PlayerSources } from "./build.ts";
export type { PlayerConfig } from "./config.ts";

type Db = Sql | TxSql;

const sources = new WeakMap<Deps, PlayerSources>();

/**
 * Points one app's compiler at other player sources (tests use a fixture player).
 *
 * @example
 *   configureCompiler(t.deps, { entry: "test/fixtures/player/entry.ts", core: "test/fixtures/player/core.ts" });
 */
export function configureCompiler(deps: Deps, custom: Partial<PlayerSources>): void {
  sources.set(deps, { ...DEFAULT_SOURCES, ...sources.get(deps), ...custom });
}

export function playerSources(deps: Deps): PlayerSources {
  return sources.get(deps) ?? DEFAULT_SOURCES;
}

export const entryKey = (code: string) => `p/${code}.js`;

function coreUrl(deps: Deps, file: string): string {
  const key = `p/${file}`;
  return deps.blobs.cdnA.publicUrl(key) ?? `${deps.config.publicUrl}/cdn/${key}`;
}

export interface Publication extends EntryPush {
  versionHash: string;
}

async function workspaceCode(db: Db, workspaceId: number): Promise<string> {
  const [row]: [{ code: string }?] = await db`SELECT code FROM workspaces WHERE id = ${workspaceId}`;
  if (!row) throw new Error(`workspace ${workspaceId} not found`);
  return row.code;
}

/** Playlist items' media, from videos of the same workspace only (a code elsewhere stays unknown). */
async function itemMedia(db: Db, workspaceId: number, codes: string[]): Promise<ItemMedia[]> {
  if (codes.length === 0) return [];
  return db<ItemMedia[]>`
    SELECT code::text AS code, default_orientation, landscape_hls, portrait_hls, landscape_thumb, portrait_thumb
    FROM videos WHERE workspace_id = ${workspaceId} AND code::text = ANY(${codes}::text[])`;
}

/**
 * Compiles `settings` for `video` and pushes the result to both CDN targets.
 * Throws (and leaves the previous entry serving) when the build or either push
 * fails. The returned `rollback` restores the previous entry, for a caller
 * whose own later step (its transaction) failed.
 */
export async function compileAndPush(deps: Deps, db: Db, video: VideoRow, settings: Settings): Promise<Publication> {
  const src = playerSources(deps);
  const targets = [deps.blobs.cdnA, deps.blobs.cdnB];
  const flags = featureFlags(settings);
  const [core, wsCode, media] = await Promise.all([
    coreFor(src.core),
    workspaceCode(db, video.workspace_id),
    flags.playlist ? itemMedia(db, video.workspace_id, playlistCodes(settings)) : Promise.resolve([]),
  ]);
  const config = playerConfig({ video, workspaceCode: wsCode, settings, flags, itemMedia: media, eventsUrl: deps.config.publicUrl });
  // The core goes first: a pushed entry must never point at a missing core.
  const [bytes] = await Promise.all([buildEntry(src.entry, config, coreUrl(deps, core.coreFile), flags), pushImmutable(targets, core.files)]);
  const push = await pushEntry(targets, entryKey(video.code), bytes);
  return { versionHash: createHash("sha256").update(bytes).digest("hex").slice(0, 16), rollback: push.rollback };
}

/** Containers whose playlist lists `code`: their bundles carry this video's media. */
async function containersOf(db: Db, workspaceId: number, code: string, exceptId: number): Promise<VideoRow[]> {
  return db<VideoRow[]>`
    SELECT * FROM videos
    WHERE workspace_id = ${workspaceId} AND id <> ${exceptId}
      AND settings -> 'playlist_options' -> 'items' @> ${db.json([{ video_code: code }] as never)}
    ORDER BY id LIMIT 100`;
}

/**
 * Compiles a video's live settings and pushes its player to both targets (the
 * encoder calls this when a video becomes ready). Playlists that list the video
 * are republished too, best effort, so their items pick up its new media.
 * Throws when the video is unknown or the compile or a push fails.
 *
 * @example
 *   // in the encoder, once every orientation is ready
 *   await publishVideo(deps, video.workspace_id, video.id);
 */
export async function publishVideo(deps: Deps, workspaceId: number, videoId: number): Promise<{ versionHash: string }> {
  // The row lock orders this against a concurrent deploy, so the bundle that
  // ends up live is the one of the settings that ended up live.
  const { versionHash, code } = await deps.sql.begin(async (tx) => {
    const [video]: [VideoRow?] = await tx`SELECT * FROM videos WHERE workspace_id = ${workspaceId} AND id = ${videoId} FOR UPDATE`;
    if (!video) throw new Error(`video ${videoId} not found in workspace ${workspaceId}`);
    const published = await compileAndPush(deps, tx, video, withDefaults(video.settings));
    return { versionHash: published.versionHash, code: video.code };
  });
  for (const container of await containersOf(deps.sql, workspaceId, code, videoId)) {
    await compileAndPush(deps, deps.sql, container, withDefaults(container.settings)).catch((error) =>
      deps.log.warn("playlist container republish failed", { video_id: container.id, error: String(error) }),
    );
  }
  return { versionHash };
}
