/**
 * HLS playlists as RFC 8216 and Apple's HLS authoring specification ask, from what
 * the segments measure rather than what ffmpeg was told. Each variant of the master
 * carries BANDWIDTH (at least the peak bit rate of any one segment, all of its bytes),
 * AVERAGE-BANDWIDTH, CODECS (from the stream's own SPS and ADTS headers,
 * transport-stream.ts), RESOLUTION and FRAME-RATE, the smallest picture first: Apple's
 * players start with the first variant listed, Chromium's native HLS with the lowest
 * BANDWIDTH, and turbo starts hls.js at the lowest (player/README.md "Fast start").
 * Each media playlist gets a TARGETDURATION no EXTINF exceeds and EXT-X-ENDLIST.
 *
 * The encoder writes its playlists this way; the playlist rewriter brings the
 * playlists of videos encoded before to it without re-encoding (rewrite.ts).
 */
import { rename } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Plan } from "./ladder.ts";
import { segmentFacts } from "./transport-stream.ts";

/** The playlists cannot be authored from these files (one is missing, or holds no H.264): a fact of the video, not an outage. */
export class PlaylistProblem extends Error {
  override name = "PlaylistProblem";
}

/** The authoring of these playlists; media rows record it as `playlists` (older rows lack it). */
export const PLAYLISTS_VERSION = 2;

export interface MediaSegment {
  uri: string;
  duration: number;
}

/** The segments of a VOD media playlist, in order. */
export function mediaSegments(text: string): MediaSegment[] {
  const segments: MediaSegment[] = [];
  let duration = -1;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const extinf = /^#EXTINF:([\d.]+)/.exec(line);
    if (extinf) duration = Number(extinf[1]);
    else if (line && !line.startsWith("#") && duration >= 0) {
      segments.push({ uri: line, duration });
      duration = -1;
    }
  }
  return segments;
}

/** The variant URIs of a master playlist, in order. */
export function variantUris(text: string): string[] {
  const lines = text.split("\n").map((l) => l.trim());
  return lines.flatMap((line, i) => (line.startsWith("#EXT-X-STREAM-INF:") && lines[i + 1] && !lines[i + 1]!.startsWith("#") ? [lines[i + 1]!] : []));
}

/**
 * The media playlist with EXT-X-TARGETDURATION the longest EXTINF rounded up (RFC 8216
 * 4.3.3.1 asks the rounded one not to exceed it; Apple's validator, the EXTINF itself)
 * and EXT-X-ENDLIST at its end (a VOD playlist is complete).
 */
export function authoredMediaPlaylist(text: string): string {
  const target = Math.max(1, Math.ceil(Math.max(0, ...mediaSegments(text).map((s) => s.duration)) - 1e-9));
  const lines = text
    .trimEnd()
    .split("\n")
    .map((l) => (l.startsWith("#EXT-X-TARGETDURATION:") ? `#EXT-X-TARGETDURATION:${target}` : l));
  if (!lines.includes("#EXT-X-ENDLIST")) lines.push("#EXT-X-ENDLIST");
  return lines.join("\n") + "\n";
}

/** Peak (the largest segment's bits over its EXTINF) and average bits per second, rounded up. */
export function bitrates(segments: MediaSegment[], sizes: number[]): { peak: number; average: number } {
  let peak = 0;
  let bits = 0;
  let seconds = 0;
  segments.forEach((s, i) => {
    const b = (sizes[i] ?? 0) * 8;
    if (s.duration > 0) peak = Math.max(peak, b / s.duration);
    bits += b;
    seconds += s.duration;
  });
  return { peak: Math.ceil(peak), average: Math.ceil(seconds > 0 ? bits / seconds : 0) };
}

export interface VariantFacts {
  /** The variant's media playlist, relative to the master. */
  uri: string;
  width: number;
  height: number;
  /** Frames per second; 0 when unknown (FRAME-RATE is then left out). */
  frameRate: number;
  /** RFC 6381 entries, video first. */
  codecs: string[];
  peak: number;
  average: number;
}

/** The master playlist: every variant with its measured attributes, smallest picture first. */
export function masterPlaylist(variants: VariantFacts[]): string {
  const lines = ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-INDEPENDENT-SEGMENTS"];
  const sorted = [...variants].sort((a, b) => a.width * a.height - b.width * b.height || a.peak - b.peak);
  for (const v of sorted) {
    const attrs = [`BANDWIDTH=${v.peak}`, `AVERAGE-BANDWIDTH=${v.average}`];
    if (v.codecs.length) attrs.push(`CODECS="${v.codecs.join(",")}"`);
    attrs.push(`RESOLUTION=${v.width}x${v.height}`);
    if (v.frameRate > 0) attrs.push(`FRAME-RATE=${v.frameRate.toFixed(3)}`);
    lines.push(`#EXT-X-STREAM-INF:${attrs.join(",")}`, v.uri);
  }
  return lines.join("\n") + "\n";
}

/** Where a video's HLS files are read and written: a local folder (the encoder) or the media store (the rewriter). */
export interface HlsFiles {
  /** A file's bytes; undefined when missing. */
  read(path: string): Promise<Uint8Array | undefined>;
  /** A file's size in bytes; undefined when missing. */
  size(path: string): Promise<number | undefined>;
  write(path: string, text: string): Promise<void>;
}

/** A variant to author: its media playlist (relative to the master) and its picture size. */
export interface VariantSource {
  uri: string;
  width: number;
  height: number;
}

export interface AuthoredNames {
  /** Where the master goes. */
  master: string;
  /** Where a variant's media playlist goes (its old path in, the new one out; relative to the master). */
  media(uri: string): string;
}

/**
 * Measures every variant (its segments' sizes, its first segment's streams and frame
 * rate) and writes each media playlist and then the master under `names`. Throws
 * PlaylistProblem when a playlist or segment is missing, or a first segment has no H.264.
 */
export async function authorHls(files: HlsFiles, sources: VariantSource[], names: AuthoredNames): Promise<VariantFacts[]> {
  const variants: VariantFacts[] = [];
  const text = async (path: string) => {
    const bytes = await files.read(path);
    if (!bytes) throw new PlaylistProblem(`${path} is missing`);
    return new TextDecoder().decode(bytes);
  };
  for (const { uri, width, height } of sources) {
    const media = await text(uri);
    const segments = mediaSegments(media);
    const dir = dirname(uri);
    const at = (s: MediaSegment) => (dir === "." ? s.uri : `${dir}/${s.uri}`);
    const sizes = await Promise.all(
      segments.map(async (s) => {
        const size = await files.size(at(s));
        if (size === undefined) throw new PlaylistProblem(`${at(s)} is missing`);
        return size;
      }),
    );
    const first = segments[0] && (await files.read(at(segments[0])));
    if (!first) throw new PlaylistProblem(`${uri} has no segment`);
    const facts = segmentFacts(first);
    if (!facts.video) throw new PlaylistProblem(`${at(segments[0]!)} has no H.264 stream`);
    const out = names.media(uri);
    await files.write(out, authoredMediaPlaylist(media));
    variants.push({
      uri: out,
      width,
      height,
      frameRate: facts.frameRate,
      codecs: [facts.video, ...(facts.audio ? [facts.audio] : [])],
      ...bitrates(segments, sizes),
    });
  }
  await files.write(names.master, masterPlaylist(variants));
  return variants;
}

/** The encoder's output folder as HlsFiles. */
export function folderFiles(dir: string): HlsFiles {
  return {
    async read(path) {
      const file = Bun.file(join(dir, path));
      return (await file.exists()) ? new Uint8Array(await file.arrayBuffer()) : undefined;
    },
    async size(path) {
      const file = Bun.file(join(dir, path));
      return (await file.exists()) ? file.size : undefined;
    },
    async write(path, text) {
      await Bun.write(join(dir, path), text);
    },
  };
}

/**
 * ffmpeg builds without `name:` in `-var_stream_map` (`Config.media.legacyHls`) write
 * the renditions to `<index>/`: they are renamed to the rung's name, as the others are.
 */
export async function renameLegacyFolders(outDir: string, plan: Plan): Promise<void> {
  for (const [i, rung] of plan.rungs.entries()) await rename(join(outDir, String(i)), join(outDir, rung.name));
}
