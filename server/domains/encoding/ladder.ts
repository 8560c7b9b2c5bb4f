/**
 * The HLS ladder: which renditions a source gets and the one ffmpeg command that
 * makes them. Never upscales; a rung the source already matches as H.264 is
 * repackaged (`-c copy`) instead of re-encoded.
 */
import type { ProbeResult } from "./probe.ts";

/** Short-side heights of the ladder (landscape: height; portrait: width). */
export const LADDER = [360, 720, 1080] as const;
export const SEGMENT_SECONDS = 4;

export interface Rung {
  name: string;
  width: number;
  height: number;
  /** Repackage the source's video stream as is. */
  copy: boolean;
  videoKbps: number;
}

export interface Plan {
  rungs: Rung[];
  /** `copy` when the source audio is already AAC; null without audio. */
  audio: "copy" | "aac" | null;
  /** Display size of the source, stored for /config. */
  width: number;
  height: number;
}

const even = (n: number): number => Math.max(2, Math.round(n / 2) * 2);

function kbpsFor(width: number, height: number): number {
  // About 2800 kb/s at 1280x720, scaled by pixel count.
  return Math.min(6000, Math.max(400, Math.round((2800 * width * height) / (1280 * 720) / 50) * 50));
}

/**
 * A rung never costs more than the source it is made from: a smaller picture gets at
 * most the source's bit rate scaled by its share of the pixels to the power 0.75 (small
 * pictures need more bits per pixel), at least 64 kb/s. Bits above that buy nothing the
 * source had, and a ladder whose smaller picture is the cheaper one is what players
 * start from: Chromium's native HLS starts at the lowest BANDWIDTH, Apple's at the
 * first variant listed, the smallest picture (hls-authoring.ts).
 */
function capFor(kbps: number, pixels: number, source: ProbeResult["video"]): number {
  if (!(source.bitRate > 0)) return kbps;
  const share = pixels / (source.displayWidth * source.displayHeight);
  const cap = Math.max(64, Math.floor(((source.bitRate / 1000) * share ** 0.75) / 10) * 10);
  return Math.min(kbps, cap);
}

export function planLadder(p: ProbeResult): Plan {
  const w = p.video.displayWidth;
  const h = p.video.displayHeight;
  const portrait = h > w;
  const short = Math.min(w, h);
  const sizes: number[] = LADDER.filter((r) => r <= short);
  // A source between rungs (or under the lowest) also gets its own size as the top rung.
  const top = Math.min(short, LADDER.at(-1)!);
  if (!sizes.includes(top) && even(top) === top) sizes.push(top);
  if (sizes.length === 0) sizes.push(even(short));
  const sourceFits = p.video.codec === "h264" && p.video.pixFmt === "yuv420p" && p.video.rotation === 0;
  const rungs = sizes.map((s): Rung => {
    const width = portrait ? s : even((s * w) / h);
    const height = portrait ? even((s * h) / w) : s;
    const copy = sourceFits && width === w && height === h;
    return { name: `${s}p`, width, height, copy, videoKbps: copy ? kbpsFor(width, height) : capFor(kbpsFor(width, height), width * height, p.video) };
  });
  return { rungs, audio: p.audio === null ? null : p.audio.codec === "aac" ? "copy" : "aac", width: w, height: h };
}

/**
 * ffmpeg arguments writing `<outDir>/master.m3u8` and `<outDir>/<rung>/index.m3u8` + segments.
 * With `legacy` (ffmpeg builds without `name:` in `-var_stream_map`), the
 * renditions land in `<outDir>/<index>/` and no master is written: see
 * `finishLegacyLayout`.
 */
export function hlsArgs(input: string, outDir: string, plan: Plan, opts: { progress?: boolean; legacy?: boolean } = {}): string[] {
  const args = ["-hide_banner", "-y", "-v", "error", "-nostdin"];
  if (opts.progress) args.push("-nostats", "-progress", "pipe:1");
  args.push("-i", input);
  const encoded = plan.rungs.map((r, i) => ({ r, i })).filter(({ r }) => !r.copy);
  if (encoded.length > 0) {
    const split = encoded.length > 1 ? `[0:v:0]split=${encoded.length}${encoded.map(({ i }) => `[s${i}]`).join("")};` : "";
    const chains = encoded.map(({ r, i }) => `${encoded.length > 1 ? `[s${i}]` : "[0:v:0]"}scale=${r.width}:${r.height},setsar=1,format=yuv420p[v${i}]`);
    args.push("-filter_complex", split + chains.join(";"));
  }
  plan.rungs.forEach((r, i) => args.push("-map", r.copy ? "0:v:0" : `[v${i}]`));
  if (plan.audio) plan.rungs.forEach(() => args.push("-map", "0:a:0"));
  plan.rungs.forEach((r, i) => {
    if (r.copy) {
      args.push(`-c:v:${i}`, "copy");
      return;
    }
    const k = r.videoKbps;
    args.push(
      `-c:v:${i}`,
      "libx264",
      `-profile:v:${i}`,
      "high",
      `-b:v:${i}`,
      `${k}k`,
      `-maxrate:v:${i}`,
      `${Math.round(k * 1.07)}k`,
      `-bufsize:v:${i}`,
      `${Math.round(k * 1.5)}k`,
    );
    args.push(`-force_key_frames:v:${i}`, `expr:gte(t,n_forced*${SEGMENT_SECONDS})`);
  });
  if (encoded.length > 0) args.push("-preset", "veryfast", "-sc_threshold", "0");
  if (plan.audio) {
    plan.rungs.forEach((_, i) => {
      if (plan.audio === "copy") args.push(`-c:a:${i}`, "copy");
      else args.push(`-c:a:${i}`, "aac", `-b:a:${i}`, "128k", `-ac:a:${i}`, "2");
    });
  }
  const streamMap = plan.rungs.map((r, i) => `v:${i}${plan.audio ? `,a:${i}` : ""}${opts.legacy ? "" : `,name:${r.name}`}`).join(" ");
  args.push(
    "-f",
    "hls",
    "-hls_time",
    String(SEGMENT_SECONDS),
    "-hls_playlist_type",
    "vod",
    "-hls_flags",
    "independent_segments",
    "-hls_segment_filename",
    `${outDir}/%v/seg_%03d.ts`,
    ...(opts.legacy ? [] : ["-master_pl_name", "master.m3u8"]),
    "-var_stream_map",
    streamMap,
    `${outDir}/%v/index.m3u8`,
  );
  return args;
}

/** ffmpeg arguments for the poster: one frame at `atS`, at most 720 on the short side. */
export function posterArgs(input: string, out: string, plan: Plan, atS: number): string[] {
  const rung = [...plan.rungs].reverse().find((r) => Math.min(r.width, r.height) <= 720) ?? plan.rungs[0]!;
  return [
    "-hide_banner",
    "-y",
    "-v",
    "error",
    "-nostdin",
    "-ss",
    atS.toFixed(3),
    "-i",
    input,
    "-frames:v",
    "1",
    "-vf",
    `scale=${rung.width}:${rung.height}`,
    "-q:v",
    "3",
    out,
  ];
}

/** `16:9` from 1920x1080; the padding-top percentage that keeps that box shape. */
export function aspectOf(width: number, height: number): { aspectRatio: string; padding: string } {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const g = gcd(width, height);
  return { aspectRatio: `${width / g}:${height / g}`, padding: `${Number(((height / width) * 100).toFixed(4))}%` };
}
