/**
 * What an HLS stream declares against what it holds, for the tests of Apple's HLS
 * authoring rules: every playlist read by a real parser (m3u8-parser), every segment
 * measured (its bytes) and probed (ffprobe: its streams and its first picture).
 */
import { Parser, type Manifest } from "m3u8-parser";

export interface VariantAudit {
  uri: string;
  attributes: NonNullable<Manifest["playlists"]>[number]["attributes"];
  /** The largest segment's bits per second of its EXTINF, and the mean over the playlist. */
  peak: number;
  average: number;
  targetDuration: number | undefined;
  longestExtinf: number;
  endList: boolean;
  /** Segments whose first video frame is not a key frame. */
  notKeyFirst: string[];
  /** ffprobe of the first segment. */
  probe: { width: number; height: number; frameRate: number; profile: string; level: number; audioProfile: string | null };
}

export const parse = (text: string): Manifest => {
  const p = new Parser();
  p.push(text);
  p.end();
  return p.manifest;
};

async function ffprobe(url: string, args: string[]): Promise<any> {
  const proc = Bun.spawn(["ffprobe", "-v", "error", "-print_format", "json", ...args, url], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`ffprobe ${url}: ${err}`);
  return JSON.parse(out);
}

/** Reads the master at `masterUrl` and audits each of its variants (URLs served over HTTP). */
export async function auditHls(masterUrl: string): Promise<{ master: Manifest; variants: VariantAudit[] }> {
  const text = async (url: string) => {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    return res.text();
  };
  const master = parse(await text(masterUrl));
  const variants: VariantAudit[] = [];
  for (const playlist of master.playlists ?? []) {
    const url = new URL(playlist.uri, masterUrl).href;
    const media = parse(await text(url));
    let peak = 0;
    let bits = 0;
    let seconds = 0;
    const notKeyFirst: string[] = [];
    for (const s of media.segments) {
      const segment = new URL(s.uri, url).href;
      const size = (await (await fetch(segment)).arrayBuffer()).byteLength * 8;
      peak = Math.max(peak, size / s.duration);
      bits += size;
      seconds += s.duration;
      const first = await ffprobe(segment, ["-select_streams", "v:0", "-read_intervals", "%+#1", "-show_entries", "frame=key_frame,pict_type", "-show_frames"]);
      if (first.frames?.[0]?.key_frame !== 1) notKeyFirst.push(s.uri);
    }
    const streams = (await ffprobe(new URL(media.segments[0]!.uri, url).href, ["-show_streams"])).streams as any[];
    const v = streams.find((x) => x.codec_type === "video");
    const a = streams.find((x) => x.codec_type === "audio");
    const [num, den] = String(v.r_frame_rate).split("/").map(Number);
    variants.push({
      uri: playlist.uri,
      attributes: playlist.attributes,
      peak,
      average: bits / seconds,
      targetDuration: media.targetDuration,
      longestExtinf: Math.max(...media.segments.map((s) => s.duration)),
      endList: media.endList === true,
      notKeyFirst,
      probe: { width: v.width, height: v.height, frameRate: num! / den!, profile: v.profile, level: v.level, audioProfile: a?.profile ?? null },
    });
  }
  return { master, variants };
}

/** The RFC 6381 `avc1.PPCCLL` profile byte of ffprobe's profile name (constraint flags vary by encoder and are not checked here). */
export const AVC_PROFILE: Record<string, string> = { "Constrained Baseline": "42", Baseline: "42", Main: "4d", High: "64" };

/**
 * Whether bytes read as MPEG-TS: each of the first four 188-byte packets (or as many as
 * there are) starts with the sync byte 0x47. Encrypted bytes do by chance once in 256 per
 * packet, so one byte alone makes a check that fails now and then.
 */
export function looksLikeTransportStream(bytes: Uint8Array): boolean {
  const packets = Math.min(4, Math.floor(bytes.length / 188));
  return packets > 0 && Array.from({ length: packets }, (_, i) => bytes[i * 188]).every((b) => b === 0x47);
}
