/**
 * From an uploaded file to a playable HLS stream: hand-off (in the upload's
 * transaction) and the encode of one job (probe, ladder, ffmpeg, publish).
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { Deps } from "../../deps.ts";
import { publishVideo } from "../publish/service.ts";
import type { TxSql } from "../../storage/postgres.ts";
import type { VideoRow } from "../../api/videos/repo.ts";
import { runFfmpeg } from "./ffmpeg.ts";
import { deletePrivate, getPrivate, orientationPrefix, outputPrefix } from "../../storage/media-keys.ts";
import { aspectOf, hlsArgs, planLadder, posterArgs } from "./ladder.ts";
import { authorHls, folderFiles, PLAYLISTS_VERSION, renameLegacyFolders } from "./hls-authoring.ts";
import { MediaError, probe } from "./probe.ts";
import { encryptFolder } from "./encrypt.ts";
import { ENCRYPTION } from "./hls-encryption.ts";
import * as repo from "./repo.ts";
import type { EncodeJobRow, Orientation } from "./repo.ts";

export { MediaError };

export interface HandOff {
  workspaceId: number;
  videoId: number;
  orientation: Orientation;
  sourceKey: string;
  size: number;
  filename: string;
  uploadId: string;
}

/**
 * docs/api.md "Video processing status": the file is accepted, the orientation is
 * `processing` and a job is queued, all in the caller's transaction. Earlier
 * HLS URLs stay until the new encode is ready, so a live player keeps playing.
 */
export async function handToEncoder(tx: TxSql, h: HandOff): Promise<VideoRow | undefined> {
  const job = await repo.insertJob(tx, { workspace_id: h.workspaceId, video_id: h.videoId, orientation: h.orientation, source_key: h.sourceKey, size: h.size });
  const media = {
    status: "processing",
    progress: 0,
    error: null,
    job_id: job.id,
    upload_id: h.uploadId,
    filename: h.filename,
    size: h.size,
    source_key: h.sourceKey,
  };
  return repo.setMedia(tx, h.workspaceId, h.videoId, h.orientation, media);
}

/** Queues the encryption of a video's ready segments (encrypt.ts) and wakes this process's runner. */
export async function queueEncryption(deps: Pick<Deps, "sql" | "wake">, videoId: number): Promise<void> {
  await repo.queueEncryption(deps.sql, videoId);
  deps.wake.encoder.notify();
}

/** Wakes this process's encoders after a job was queued (`deps.wake.encoder`); other processes poll. */
export function wakeEncoder(deps: Pick<Deps, "wake">): void {
  deps.wake.encoder.notify();
}

export interface EncodeContext {
  workerId: string;
  /** Aborted when the job is no longer ours (the runner keeps its lease) or the worker stops. */
  signal: AbortSignal;
}

/** Steps of 10 (docs/api.md: `progress` moves in steps); 100 only when ready. */
const step = (percent: number): number => Math.min(90, Math.floor(percent / 10) * 10);

export async function encodeJob(deps: Deps, job: EncodeJobRow, ctx: EncodeContext): Promise<"ready" | "error" | "superseded"> {
  const { sql, log } = deps;
  const video = await repo.findVideoCode(sql, job.video_id);
  if (!video) {
    await repo.finishJob(sql, job.id, ctx.workerId, "failed", "video deleted");
    return "superseded";
  }
  const work = await mkdtemp(join(tmpdir(), `frameline-encode-${job.id}-`));
  try {
    const input = join(work, "source");
    const source = await getPrivate(deps.blobs, job.source_key);
    if (!source) throw new MediaError("The uploaded file is missing; upload it again.");
    await Bun.write(input, new Response(source.body));

    const probed = await probe(deps.config.media.ffprobePath, input);
    const plan = planLadder(probed);
    const aspect = aspectOf(plan.width, plan.height);
    const facts = { w: plan.width, h: plan.height, aspect_ratio: aspect.aspectRatio, padding: aspect.padding, duration_s: Number(probed.durationS.toFixed(3)) };
    const fresh = await repo.patchMedia(sql, job.video_id, job.orientation, job.id, facts);
    deps.videoCache.evict(job.video_id);
    if (!fresh) return await superseded(deps, job, ctx);

    const out = join(work, "hls");
    let shown = 0;
    const legacy = deps.config.media.legacyHls;
    await runFfmpeg(deps.config.media.ffmpegPath, hlsArgs(input, out, plan, { progress: true, legacy }), {
      durationS: probed.durationS,
      signal: ctx.signal,
      onProgress: (percent) => {
        const next = step(percent);
        if (next <= shown) return;
        shown = next;
        repo.patchMedia(sql, job.video_id, job.orientation, job.id, { progress: next }).then(
          () => deps.videoCache.evict(job.video_id),
          () => {},
        );
      },
    });
    if (legacy) await renameLegacyFolders(out, plan);
    // ffmpeg's own master under-declares BANDWIDTH and leaves CODECS out on the copy path: measured instead.
    await authorHls(
      folderFiles(out),
      plan.rungs.map((r) => ({ uri: `${r.name}/index.m3u8`, width: r.width, height: r.height })),
      { master: "master.m3u8", media: (uri) => uri },
    );
    // Encrypted streams: the segments are encrypted before any is stored (encrypt.ts).
    const encrypted = video.encryption === ENCRYPTION;
    if (encrypted) await encryptFolder(deps, out, outputPrefix(video.code, job.orientation, job.id), job.video_id, video.code);
    const poster = join(work, "poster.jpg");
    await runFfmpeg(deps.config.media.ffmpegPath, posterArgs(input, poster, plan, Math.min(1, probed.durationS / 2)), { signal: ctx.signal });

    const prefix = outputPrefix(video.code, job.orientation, job.id);
    await publish(deps, work, prefix, ctx.signal);
    const ready = {
      status: "ready",
      progress: 100,
      error: null,
      hls_prefix: prefix,
      renditions: plan.rungs.map((r) => ({ name: r.name, w: r.width, h: r.height, copied: r.copy })),
      playlists: PLAYLISTS_VERSION,
      ...(encrypted && { encryption: ENCRYPTION }),
    };
    // Keys, not URLs: the answer builds the URL from the settings of the moment.
    const keys = { hls: `${prefix}master.m3u8`, thumb: `${prefix}poster.jpg` };
    const current = await sql.begin(async (tx) => {
      const ok = await repo.patchMedia(tx, job.video_id, job.orientation, job.id, ready, keys);
      if (ok) await repo.finishJob(tx, job.id, ctx.workerId, "done");
      return ok;
    });
    deps.videoCache.evict(job.video_id);
    if (!current) return await superseded(deps, job, ctx, prefix);
    await removeOlder(deps, job, video.code);
    await publishPlayer(deps, job);
    // Encryption asked for while this encode ran: its job found nothing ready, so one goes now.
    if (!encrypted && (await repo.findVideoCode(sql, job.video_id))?.encryption === ENCRYPTION) await queueEncryption(deps, job.video_id);
    return "ready";
  } catch (error) {
    if (!(error instanceof MediaError)) throw error;
    log.info("encode failed", { job: job.id, reason: error.message });
    await sql.begin(async (tx) => {
      await repo.patchMedia(tx, job.video_id, job.orientation, job.id, { status: "error", progress: 0, error: error.message });
      await repo.finishJob(tx, job.id, ctx.workerId, "failed", error.message);
    });
    deps.videoCache.evict(job.video_id);
    return "error";
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * docs/api.md "Status object": the player publishes itself once media is ready. A
 * failure here leaves the media ready; the next deploy publishes the bundle.
 */
async function publishPlayer(deps: Deps, job: EncodeJobRow): Promise<void> {
  try {
    await publishVideo(deps, job.workspace_id, job.video_id);
  } catch (error) {
    deps.log.warn("player publish after encoding failed", { video_id: job.video_id, error: String(error) });
  }
}

async function superseded(deps: Deps, job: EncodeJobRow, ctx: EncodeContext, written?: string): Promise<"superseded"> {
  await repo.finishJob(deps.sql, job.id, ctx.workerId, "failed", "superseded by a newer upload");
  if (written) await deps.blobs.media.deletePrefix(written);
  return "superseded";
}

/** Segments and variant playlists first, the master last: a master never names a missing file. */
async function publish(deps: Deps, dir: string, prefix: string, signal: AbortSignal): Promise<void> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile() && e.name !== "source")
    .map((e) => relative(dir, join(e.parentPath, e.name)).split("\\").join("/"))
    .map((rel) => (rel.startsWith("hls/") ? rel.slice(4) : rel));
  const order = (rel: string) => (rel === "master.m3u8" ? 2 : rel.endsWith(".m3u8") ? 1 : 0);
  // Every object name carries the job id, so each one can be cached forever.
  const cacheControl = "public, max-age=31536000, immutable";
  for (const rank of [0, 1, 2]) {
    const batch = files.filter((f) => order(f) === rank);
    for (let i = 0; i < batch.length; i += 4) {
      if (signal.aborted) throw signal.reason ?? new Error("aborted");
      await Promise.all(
        batch.slice(i, i + 4).map((rel) => {
          const local = join(dir, rel === "poster.jpg" ? rel : `hls/${rel}`);
          return deps.blobs.media.put(`${prefix}${rel}`, Bun.file(local), { cacheControl });
        }),
      );
    }
  }
}

/** The new files are live: earlier renditions and sources of this orientation go. */
async function removeOlder(deps: Deps, job: EncodeJobRow, videoCode: string): Promise<void> {
  try {
    const base = orientationPrefix(videoCode, job.orientation);
    const older = new Set<string>();
    for await (const info of deps.blobs.media.list(base)) {
      const gen = info.key.slice(base.length).split("/")[0]!;
      if (gen !== String(job.id)) older.add(gen);
    }
    for (const gen of older) await deps.blobs.media.deletePrefix(`${base}${gen}/`);
    for (const key of await repo.olderSources(deps.sql, job)) await deletePrivate(deps.blobs, key);
  } catch (error) {
    deps.log.warn("removing replaced media failed", { job: job.id, error: String(error) });
  }
}
