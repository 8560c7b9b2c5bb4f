/**
 * Is it a video? docs/api.md "Uploads" rule 2: decided from the bytes, never from the
 * declared `mime_type`. This is the first gate (container signatures); ffprobe in
 * the encoder is the second.
 */

export const SNIFF_BYTES = 64;

export type ContainerKind = "mp4" | "avi" | "matroska" | "ogg";

const ascii = (bytes: Uint8Array, start: number, end: number): string => String.fromCharCode(...bytes.subarray(start, end));

/** ISO BMFF / QuickTime top-level boxes a movie file may start with. */
const QUICKTIME_BOXES = new Set(["ftyp", "moov", "mdat", "wide", "free", "skip", "pnot"]);

/** mp4, mov, m4v, 3gp (ISO BMFF / QuickTime), avi (RIFF AVI), webm and mkv (EBML), ogv (Ogg). */
export function sniffContainer(head: Uint8Array): ContainerKind | undefined {
  if (head.length >= 12 && QUICKTIME_BOXES.has(ascii(head, 4, 8))) return "mp4";
  if (head.length >= 12 && ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 12) === "AVI ") return "avi";
  if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return "matroska";
  if (head.length >= 4 && ascii(head, 0, 4) === "OggS") return "ogg";
  return undefined;
}

/** Reads the first bytes of a stream (then cancels it). */
export async function readHead(stream: ReadableStream<Uint8Array>, n = SNIFF_BYTES): Promise<Uint8Array> {
  const reader = stream.getReader();
  const out = new Uint8Array(n);
  let filled = 0;
  try {
    while (filled < n) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = Math.min(value.byteLength, n - filled);
      out.set(value.subarray(0, take), filled);
      filled += take;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return out.subarray(0, filled);
}
