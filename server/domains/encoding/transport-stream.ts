/**
 * What an HLS segment's own bytes say about its streams (MPEG-TS, ISO/IEC 13818-1):
 * the CODECS entries of RFC 8216 section 4.3.4.2 in the form of RFC 6381, read from the
 * H.264 sequence parameter set (`avc1.PPCCLL`: profile_idc, the constraint flags,
 * level_idc) and from the first ADTS header (`mp4a.40.N`, N the AAC object type),
 * whether the segment's first picture is a key frame (an IDR), as Apple's authoring
 * rules and EXT-X-INDEPENDENT-SEGMENTS ask of every segment, and the frame rate its
 * pictures' timestamps give (FRAME-RATE). No ffprobe: the one shipped on npm crashes on
 * MPEG-TS input.
 */

export interface SegmentFacts {
  /** `avc1.64001f`; undefined without an H.264 stream or its SPS. */
  video?: string;
  /** `mp4a.40.2`; undefined without an ADTS AAC stream. */
  audio?: string;
  /** The first coded picture is an IDR. */
  keyFrameFirst: boolean;
  /** Pictures per second over the segment's first ones (their decoding timestamps); 0 when unknown. */
  frameRate: number;
}

const PACKET = 188;
const STREAM_H264 = 0x1b;
const STREAM_AAC_ADTS = 0x0f;
const hex = (n: number) => n.toString(16).padStart(2, "0");
/** Pictures whose timestamps give the frame rate. */
const RATE_FRAMES = 50;

/** A 33-bit PES timestamp (90 kHz) from its five bytes; multiplications, as it does not fit 32-bit shifts. */
const timestamp = (b: Uint8Array, i: number) =>
  ((b[i]! >> 1) & 7) * 2 ** 30 + b[i + 1]! * 2 ** 22 + (b[i + 2]! >> 1) * 2 ** 15 + b[i + 3]! * 2 ** 7 + (b[i + 4]! >> 1);

/** The frame rate from the decoding (else presentation) timestamps of the first PES headers of `pid`: one picture each. */
function frameRateOf(ts: Uint8Array, pid: number): number {
  const stamps: number[] = [];
  for (const p of payloads(ts)) {
    if (p.pid !== pid || !p.start || p.data.length < 19 || p.data[0] !== 0 || p.data[1] !== 0 || p.data[2] !== 1) continue;
    const flags = p.data[7]! >> 6;
    if (flags >= 2) stamps.push(timestamp(p.data, flags === 3 ? 14 : 9));
    if (stamps.length === RATE_FRAMES) break;
  }
  const span = stamps.length > 1 ? stamps.at(-1)! - stamps[0]! : 0;
  return span > 0 ? (90_000 * (stamps.length - 1)) / span : 0;
}

/** The payload of each transport packet of `pid`, with its payload-unit-start flag, in order. */
function* payloads(ts: Uint8Array): Generator<{ pid: number; start: boolean; data: Uint8Array }> {
  for (let i = 0; i + PACKET <= ts.length; i += PACKET) {
    if (ts[i] !== 0x47) continue;
    const pid = ((ts[i + 1]! & 0x1f) << 8) | ts[i + 2]!;
    const control = (ts[i + 3]! >> 4) & 3;
    if (!(control & 1)) continue;
    const offset = 4 + (control & 2 ? 1 + ts[i + 4]! : 0);
    if (offset < PACKET) yield { pid, start: (ts[i + 1]! & 0x40) !== 0, data: ts.subarray(i + offset, i + PACKET) };
  }
}

/** A PSI section (PAT, PMT) from a unit-start payload: skips the pointer field, stops before the CRC. */
function section(data: Uint8Array): Uint8Array {
  const s = data.subarray(1 + data[0]!);
  const length = ((s[1]! & 0x0f) << 8) | s[2]!;
  return s.subarray(0, Math.min(s.length, 3 + length - 4));
}

/** The elementary stream bytes of the first PES of each of `pids` (its header removed). */
function firstPes(ts: Uint8Array, pids: number[]): Map<number, Uint8Array> {
  const parts = new Map<number, Uint8Array[]>();
  const done = new Set<number>();
  for (const { pid, start, data } of payloads(ts)) {
    if (!pids.includes(pid) || done.has(pid)) continue;
    if (start && parts.has(pid)) done.add(pid);
    else if (start) parts.set(pid, [data]);
    else parts.get(pid)?.push(data);
    if (done.size === pids.length) break;
  }
  const out = new Map<number, Uint8Array>();
  for (const [pid, list] of parts) {
    const pes = Buffer.concat(list);
    // 00 00 01, stream id, length, two flag bytes, then the header's own length.
    if (pes[0] === 0 && pes[1] === 0 && pes[2] === 1) out.set(pid, pes.subarray(9 + pes[8]!));
  }
  return out;
}

/** Reads the facts of one segment; a stream it cannot find is left undefined. */
export function segmentFacts(ts: Uint8Array): SegmentFacts {
  let pmt = -1;
  let videoPid = -1;
  let audioPid = -1;
  for (const { pid, start, data } of payloads(ts)) {
    if (!start) continue;
    if (pid === 0 && pmt < 0) {
      const pat = section(data);
      for (let i = 8; i + 4 <= pat.length; i += 4) if ((pat[i]! << 8) | pat[i + 1]!) pmt = ((pat[i + 2]! & 0x1f) << 8) | pat[i + 3]!;
    } else if (pid === pmt) {
      const s = section(data);
      for (let i = 12 + (((s[10]! & 0x0f) << 8) | s[11]!); i + 5 <= s.length; i += 5 + (((s[i + 3]! & 0x0f) << 8) | s[i + 4]!)) {
        const es = ((s[i + 1]! & 0x1f) << 8) | s[i + 2]!;
        if (s[i] === STREAM_H264 && videoPid < 0) videoPid = es;
        if (s[i] === STREAM_AAC_ADTS && audioPid < 0) audioPid = es;
      }
      break;
    }
  }
  const facts: SegmentFacts = { keyFrameFirst: false, frameRate: videoPid < 0 ? 0 : frameRateOf(ts, videoPid) };
  const es = firstPes(
    ts,
    [videoPid, audioPid].filter((p) => p >= 0),
  );
  const video = es.get(videoPid);
  if (video) {
    let picture = false;
    // Annex B: NAL units after 00 00 01 start codes; the type is the low 5 bits of the first byte.
    for (let i = 0; i + 3 < video.length; i++) {
      if (video[i] !== 0 || video[i + 1] !== 0 || video[i + 2] !== 1) continue;
      const nal = video.subarray(i + 3);
      const type = nal[0]! & 0x1f;
      if (type === 7 && !facts.video && nal.length >= 4) facts.video = `avc1.${hex(nal[1]!)}${hex(nal[2]!)}${hex(nal[3]!)}`;
      if (type >= 1 && type <= 5 && !picture) {
        picture = true;
        facts.keyFrameFirst = type === 5;
      }
      i += 2;
    }
  }
  const audio = es.get(audioPid);
  // ADTS: a 12-bit sync word, then the profile (object type - 1) in the top bits of the third byte.
  if (audio && audio.length > 2 && audio[0] === 0xff && (audio[1]! & 0xf0) === 0xf0) facts.audio = `mp4a.40.${(audio[2]! >> 6) + 1}`;
  return facts;
}
