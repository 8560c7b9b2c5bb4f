/** ffprobe of a local file: what the ladder planner and /config need to know. */

export interface ProbeResult {
  durationS: number;
  video: {
    codec: string;
    pixFmt: string;
    width: number;
    height: number;
    /** Display size: width and height swapped for a 90/270 degree rotation. */
    displayWidth: number;
    displayHeight: number;
    rotation: number;
    /** The video stream's bits per second (else the whole file's), 0 when ffprobe does not say. */
    bitRate: number;
  };
  audio: { codec: string } | null;
}

/** The file is not something we can decode; `message` is a sentence for the user. */
export class MediaError extends Error {
  override name = "MediaError";
}

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  pix_fmt?: string;
  width?: number;
  height?: number;
  bit_rate?: string;
  duration?: string;
  tags?: Record<string, string>;
  side_data_list?: { rotation?: number }[];
  disposition?: { attached_pic?: number };
}

/** The last meaningful stderr line, without ffmpeg's "<path>: " prefix. */
export function reasonFrom(stderr: string, path?: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  let line = lines.at(-1) ?? "unknown error";
  if (path && line.startsWith(path)) line = line.slice(path.length).replace(/^:\s*/, "");
  line = line.replace(/^\[[^\]]+\]\s*/, "");
  return line.replace(/\.$/, "");
}

export async function probe(ffprobePath: string, file: string): Promise<ProbeResult> {
  const proc = Bun.spawn([ffprobePath, "-v", "error", "-print_format", "json", "-show_format", "-show_streams", file], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new MediaError(`The file could not be decoded: ${reasonFrom(err, file)}.`);
  const parsed = JSON.parse(out) as { streams?: FfprobeStream[]; format?: { duration?: string; bit_rate?: string } };
  const streams = parsed.streams ?? [];
  const v = streams.find((s) => s.codec_type === "video" && !s.disposition?.attached_pic && (s.width ?? 0) > 0);
  if (!v) throw new MediaError("The file could not be decoded: it contains no video stream.");
  const a = streams.find((s) => s.codec_type === "audio");
  const durationS = Number(parsed.format?.duration ?? v.duration ?? NaN);
  if (!Number.isFinite(durationS) || durationS <= 0) throw new MediaError("The file could not be decoded: its running time is unknown.");
  const rawRotation = v.side_data_list?.find((d) => typeof d.rotation === "number")?.rotation ?? Number(v.tags?.rotate ?? 0);
  const rotation = ((Math.round(rawRotation) % 360) + 360) % 360;
  const swap = rotation === 90 || rotation === 270;
  const width = v.width!;
  const height = v.height!;
  return {
    durationS,
    video: {
      codec: v.codec_name ?? "unknown",
      pixFmt: v.pix_fmt ?? "unknown",
      width,
      height,
      displayWidth: swap ? height : width,
      displayHeight: swap ? width : height,
      rotation,
      bitRate: Number(v.bit_rate ?? parsed.format?.bit_rate) || 0,
    },
    audio: a ? { codec: a.codec_name ?? "unknown" } : null,
  };
}
