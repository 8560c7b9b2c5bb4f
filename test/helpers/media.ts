/**
 * Short test clips made by the real ffmpeg (lavfi testsrc + sine), generated once
 * per machine into the temp dir. Tiny on purpose: encoder tests must run in seconds.
 */
import { mkdir, rename, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const DIR = join(tmpdir(), "frameline-test-clips-v1");

type ClipName = "landscape" | "long" | "vsl" | "portrait" | "vp9" | "hd" | "big" | "mpeg4" | "corrupt" | "text";

const FILES: Record<ClipName, string> = {
  landscape: "landscape-640x360.mp4",
  long: "landscape-640x360-8s.mp4",
  vsl: "landscape-640x360-16s.mp4",
  portrait: "portrait-360x640.mp4",
  vp9: "vp9-opus-320x180.webm",
  hd: "mpeg4-mp3-1280x720.avi",
  big: "big-noise-640x360.mp4",
  mpeg4: "mpeg4-noise-400x300.mp4",
  corrupt: "corrupt.mp4",
  text: "notes.txt",
};

async function ffmpeg(args: string[]): Promise<void> {
  const proc = Bun.spawn(["ffmpeg", "-hide_banner", "-v", "error", "-y", "-nostdin", ...args], { stdout: "ignore", stderr: "pipe" });
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`ffmpeg failed: ${err}`);
}

/** ffmpeg arguments, written as one line each (no argument holds a space). */
const args = (line: string) => line.split(" ");

/** Two generated inputs: a video filter graph and an audio one. */
const lavfi = (video: string, audio: string) => ["-f", "lavfi", "-i", video, "-f", "lavfi", "-i", audio];

const source = (w: number, h: number, seconds: number) => lavfi(`testsrc=size=${w}x${h}:rate=25:duration=${seconds}`, `sine=frequency=440:duration=${seconds}`);

const H264_AAC_MP4 = args("-c:v libx264 -preset ultrafast -pix_fmt yuv420p -g 50 -c:a aac -shortest -f mp4");

async function make(name: ClipName, out: string): Promise<void> {
  switch (name) {
    case "landscape":
    case "long":
    case "vsl":
      // H.264/AAC at exactly 640x360: the 360p rung is repackaged, not re-encoded. `long` lasts 8 s (room for timed features),
      // `vsl` 16 s (room to watch, rewatch and skip parts of it).
      return ffmpeg([...source(640, 360, { landscape: 3, long: 8, vsl: 16 }[name]), ...H264_AAC_MP4, out]);
    case "portrait":
      return ffmpeg([...source(360, 640, 2), ...H264_AAC_MP4, out]);
    case "vp9":
      return ffmpeg([...source(320, 180, 2), ...args("-c:v libvpx-vp9 -deadline realtime -cpu-used 8 -b:v 300k -c:a libopus -shortest -f webm"), out]);
    case "hd":
      // Neither H.264 nor AAC, and tall enough for two rungs: both are encoded.
      return ffmpeg([...source(1280, 720, 2), ...args("-c:v mpeg4 -q:v 5 -c:a libmp3lame -shortest -f avi"), out]);
    case "big":
      // Noise barely compresses: about 10-20 MB in 3 s, so a resumable upload takes several 8 MiB chunks.
      return ffmpeg([
        ...lavfi("nullsrc=size=640x360:rate=25:duration=3,geq=lum='random(1)*255':cb=128:cr=128", "sine=frequency=300:duration=3"),
        ...args("-c:v libx264 -preset ultrafast -qp 4 -pix_fmt yuv420p -c:a aac -shortest -f mp4"),
        out,
      ]);
    case "mpeg4":
      // About 9 MB of MPEG-4 Part 2 noise in 3 s: several 1 MiB chunks, and not H.264, so the encoder really encodes it.
      return ffmpeg([
        ...lavfi("testsrc=size=400x300:rate=25,noise=alls=100:allf=t", "sine=frequency=440:duration=3"),
        ...args("-t 3 -c:v mpeg4 -q:v 1 -c:a aac -shortest -f mp4"),
        out,
      ]);
    case "corrupt": {
      // A real ftyp box (passes the signature check), then garbage: only ffprobe can tell.
      const real = new Uint8Array(await Bun.file(await clip("landscape")).arrayBuffer());
      const junk = new Uint8Array(64 * 1024);
      for (let i = 0; i < junk.length; i++) junk[i] = (i * 2654435761) >>> 24;
      const ftypLength = new DataView(real.buffer).getUint32(0);
      await Bun.write(out, new Blob([real.subarray(0, ftypLength), junk]));
      return;
    }
    case "text":
      await Bun.write(out, "These are meeting notes, not a video.\n".repeat(200));
      return;
  }
}

const pending = new Map<ClipName, Promise<string>>();

/** Path of a generated clip (made on first use). */
export function clip(name: ClipName): Promise<string> {
  let p = pending.get(name);
  if (!p) {
    p = (async () => {
      await mkdir(DIR, { recursive: true });
      const path = join(DIR, FILES[name]);
      if (await stat(path).catch(() => undefined)) return path;
      const tmp = `${path}.${process.pid}.tmp`;
      await make(name, tmp);
      await rename(tmp, path);
      return path;
    })();
    pending.set(name, p);
  }
  return p;
}

export async function sha256File(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  return hasher.digest("hex");
}

export function sha256(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

/** ffprobe's verdict on a (local or http) playlist: the streams it finds, or its error. */
export async function ffprobeStreams(
  url: string,
): Promise<{ ok: boolean; streams: { codec_type: string; codec_name: string; width?: number; height?: number }[]; error: string }> {
  const proc = Bun.spawn(["ffprobe", "-v", "error", "-print_format", "json", "-show_streams", url], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const streams = code === 0 ? ((JSON.parse(out) as { streams?: never[] }).streams ?? []) : [];
  return { ok: code === 0, streams, error: err };
}
