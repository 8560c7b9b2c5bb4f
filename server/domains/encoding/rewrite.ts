/**
 * The playlists of a video encoded before hls-authoring.ts, brought to it without
 * re-encoding: the segments stay; the authored media and master playlists are written
 * beside the old ones under new names (every media object is served as immutable, so a
 * playlist is never changed in place), the video's key points at the new master, and
 * its player is published again so the bundle carries it. Bundles and caches that hold
 * the old master keep playing the old files.
 */
import type { Deps } from "../../deps.ts";
import type { BlobStore } from "../../storage/blob/blob-store.ts";
import { publishVideo } from "../publish/service.ts";
import { authorHls, type HlsFiles, PlaylistProblem, type VariantSource, variantUris } from "./hls-authoring.ts";
import * as repo from "./repo.ts";
import type { Orientation, RewriteVideo } from "./repo.ts";

const IMMUTABLE = "public, max-age=31536000, immutable";

async function bytesOf(store: BlobStore, key: string): Promise<Uint8Array | undefined> {
  const object = await store.get(key);
  return object ? new Uint8Array(await new Response(object.body).arrayBuffer()) : undefined;
}

/** The files under `dir` of the media store as HlsFiles; sizes come from one listing. */
async function storeFiles(store: BlobStore, dir: string): Promise<HlsFiles> {
  const sizes = new Map<string, number>();
  for await (const info of store.list(dir)) sizes.set(info.key.slice(dir.length), info.size);
  return {
    read: (path) => bytesOf(store, dir + path),
    size: async (path) => sizes.get(path),
    async write(path, text) {
      await store.put(dir + path, text, { cacheControl: IMMUTABLE });
    },
  };
}

/** Each variant's picture size, from the renditions the encoder recorded (`<name>/index.m3u8` is rung `name`'s). */
function sources(uris: string[], renditions: unknown): VariantSource[] {
  const list = Array.isArray(renditions) ? (renditions as { name?: unknown; w?: unknown; h?: unknown }[]) : [];
  return uris.map((uri) => {
    const r = list.find((x) => x && x.name === uri.split("/")[0]);
    if (!r || typeof r.w !== "number" || typeof r.h !== "number") throw new PlaylistProblem(`no rendition recorded for ${uri}`);
    return { uri, width: r.w, height: r.h };
  });
}

/** `master.m3u8` → `master-v2.m3u8`: the authored playlist's own name. */
const versioned = (path: string, version: number) => path.replace(/(\.m3u8)?$/, `-v${version}.m3u8`);

/**
 * Rewrites the stale orientations of one video to `version`; answers how many it
 * rewrote and how many it had to leave (a file missing, no H.264 in it: logged).
 * Throws on an outage (the store, the database), so the job tries again later.
 */
export async function rewritePlaylists(deps: Deps, video: RewriteVideo, version: number): Promise<{ rewritten: number; skipped: number }> {
  let rewritten = 0;
  let skipped = 0;
  for (const o of ["landscape", "portrait"] as Orientation[]) {
    const media = video[`${o}_media`];
    const key = video[`${o}_hls`];
    if (media?.status !== "ready" || Number(media.playlists ?? 0) >= version) continue;
    // A URL is a file of another origin (a row from before keys): nothing here to rewrite.
    if (!key || /^https?:\/\//.test(key) || typeof media.job_id !== "number") {
      skipped++;
      continue;
    }
    const dir = key.slice(0, key.lastIndexOf("/") + 1);
    const master = key.slice(dir.length);
    try {
      const files = await storeFiles(deps.blobs.media, dir);
      const text = await files.read(master);
      if (!text) throw new PlaylistProblem(`${key} is missing`);
      const authored = versioned(master, version);
      await authorHls(files, sources(variantUris(new TextDecoder().decode(text)), media.renditions), {
        master: authored,
        media: (uri) => versioned(uri, version),
      });
      // Only while this encode is still the orientation's file: a newer upload has its own playlists.
      const current = await repo.patchMedia(deps.sql, video.id, o, media.job_id, { playlists: version }, { hls: dir + authored, thumb: video[`${o}_thumb`] });
      deps.videoCache.evict(video.id);
      if (current) rewritten++;
    } catch (error) {
      if (!(error instanceof PlaylistProblem)) throw error;
      deps.log.warn("playlists left as they are", { video_id: video.id, orientation: o, reason: error.message });
      skipped++;
    }
  }
  if (rewritten > 0) {
    // Best effort, as after an encode: the next deploy publishes the bundle otherwise.
    await publishVideo(deps, video.workspace_id, video.id).catch((error) =>
      deps.log.warn("player publish after a playlist rewrite failed", { video_id: video.id, error: String(error) }),
    );
  }
  return { rewritten, skipped };
}
