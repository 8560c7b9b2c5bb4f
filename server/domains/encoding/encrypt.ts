/**
 * Encrypted streams (README "Playback protection", `encryption: "aes-128"`): a video's
 * segments encrypted under its key (hls-encryption.ts) without re-encoding. A new
 * encode encrypts its files before any is stored (`encryptFolder`). A video already
 * ready is brought over by an encryption job (`encryptVideo`): encrypted copies of its
 * segments and playlists are written beside the plain ones under new names (media
 * objects are immutable), the video points at the new master, its player is published
 * again, and only then are the plain segments and playlists deleted.
 */
import { join } from "node:path";
import type { Deps } from "../../deps.ts";
import { findVideoById } from "../../api/videos/repo.ts";
import { publishVideo } from "../publish/service.ts";
import { variantUris } from "./hls-authoring.ts";
import { ENCRYPTION, encryptedMediaPlaylist, encryptSegment, KEY_FILE, relativeUri, renamedMaster, SUFFIX, withSuffix } from "./hls-encryption.ts";
import * as repo from "./repo.ts";
import type { Orientation } from "./repo.ts";

const IMMUTABLE = "public, max-age=31536000, immutable";

/** Where the media host answers a video's key: `videos/<code>/aes128.key`. */
export const keyPath = (code: string): string => `videos/${code}/${KEY_FILE}`;

interface Files {
  read(path: string): Promise<Uint8Array | undefined>;
  write(path: string, body: Uint8Array | string): Promise<void>;
}

/**
 * Encrypts the variants `master` names, relative to `base` (the store key of the folder
 * the files will be served from, for the key's relative URI); answers the paths written
 * and the plain ones they replace. `rename` gives the encrypted files their names.
 */
async function encryptVariants(files: Files, base: string, master: string, code: string, key: Uint8Array, rename: (p: string) => string) {
  const read = async (path: string) => {
    const bytes = await files.read(path);
    if (!bytes) throw new Error(`${base}${path} is missing`);
    return bytes;
  };
  const plain: string[] = [];
  const masterText = new TextDecoder().decode(await read(master));
  for (const uri of variantUris(masterText)) {
    const folder = uri.slice(0, uri.lastIndexOf("/") + 1);
    const { playlist, segments } = encryptedMediaPlaylist(new TextDecoder().decode(await read(uri)), relativeUri(base + uri, keyPath(code)), rename);
    for (const s of segments) {
      await files.write(folder + s.to, encryptSegment(await read(folder + s.from), key, s.iv));
      plain.push(folder + s.from);
    }
    await files.write(rename(uri), playlist);
    plain.push(uri);
  }
  // The master last: it never names a file not yet written.
  await files.write(rename(master), renamedMaster(masterText, rename));
  plain.push(master);
  return plain;
}

/** A new encode's files in `dir`, encrypted in place before they are stored under `prefix`. */
export async function encryptFolder(deps: Pick<Deps, "sql">, dir: string, prefix: string, videoId: number, code: string): Promise<void> {
  const key = await repo.videoKey(deps.sql, videoId);
  const files: Files = {
    read: async (path) => {
      const file = Bun.file(join(dir, path));
      return (await file.exists()) ? new Uint8Array(await file.arrayBuffer()) : undefined;
    },
    write: async (path, body) => {
      await Bun.write(join(dir, path), body);
    },
  };
  await encryptVariants(files, prefix, "master.m3u8", code, key, (p) => p);
}

/**
 * The encryption job's work: every ready orientation of the video not yet encrypted.
 * Answers how many it encrypted. A video that no longer asks for encryption is left.
 * The plain files go only after the player is published with the encrypted master;
 * a failed publish fails the attempt, and the next one finds the plain files left
 * beside the encrypted ones and finishes.
 */
export async function encryptVideo(deps: Deps, videoId: number): Promise<number> {
  const video = await findVideoById(deps.sql, videoId);
  if (!video || video.encryption !== ENCRYPTION) return 0;
  const key = await repo.videoKey(deps.sql, video.id);
  const store = deps.blobs.media;
  let done = 0;
  const leftovers: string[] = [];
  for (const o of ["landscape", "portrait"] as Orientation[]) {
    const media = video[`${o}_media`];
    let hls = video[`${o}_hls`];
    if (media?.status !== "ready" || typeof media.job_id !== "number" || !hls || /^https?:\/\//.test(hls)) continue;
    const dir = hls.slice(0, hls.lastIndexOf("/") + 1);
    if (media.encryption !== ENCRYPTION) {
      const files: Files = {
        read: async (path) => {
          const object = await store.get(dir + path);
          return object ? new Uint8Array(await new Response(object.body).arrayBuffer()) : undefined;
        },
        write: async (path, body) => {
          await store.put(dir + path, body, { cacheControl: IMMUTABLE });
        },
      };
      await encryptVariants(files, dir, hls.slice(dir.length), video.code, key, withSuffix);
      hls = dir + withSuffix(hls.slice(dir.length));
      // Only while this encode is still the orientation's: a newer upload was encrypted as it was encoded.
      const current = await repo.patchMedia(deps.sql, video.id, o, media.job_id, { encryption: ENCRYPTION }, { hls, thumb: video[`${o}_thumb`] });
      deps.videoCache.evict(video.id);
      if (!current) continue;
      done++;
    }
    // Copies made by this job carry the suffix; what lacks it beside them is the plain original.
    if (!hls.endsWith(`${SUFFIX}.m3u8`)) continue;
    for await (const info of store.list(dir)) {
      if (/\.(ts|m4s|m3u8)$/.test(info.key) && !info.key.includes(`${SUFFIX}.`)) leftovers.push(info.key);
    }
  }
  if (leftovers.length) {
    await publishVideo(deps, video.workspace_id, video.id);
    for (const key of leftovers) await store.delete(key);
  }
  return done;
}
