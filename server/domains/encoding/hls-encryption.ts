/**
 * HLS AES-128 (RFC 8216 4.3.2.4, 5.2) over segments already encoded: each segment
 * encrypted whole with AES-128-CBC and PKCS7 padding, under the video's one key, with
 * an IV of its own (its media sequence number as a 128-bit big-endian integer, the
 * RFC's default, also written out in the playlist so no player has to derive it).
 * Nothing is re-encoded: the playlist gains an EXT-X-KEY before each segment, and the
 * key's URI points at the media host's key route for the video (`videos/<code>/aes128.key`).
 *
 * @example
 *   const { playlist, segments } = encryptedMediaPlaylist(text, "../../../aes128.key", withSuffix);
 *   for (const s of segments) write(s.to, encryptSegment(read(s.from), key, s.iv));
 */
import { createCipheriv, createDecipheriv } from "node:crypto";

export const ENCRYPTION = "aes-128";
/** The key's file name under `videos/<code>/`, answered by the media host, never stored as a blob. */
export const KEY_FILE = "aes128.key";
/** What the encrypted copies of playlists and segments are named with (`seg_000.ts` → `seg_000-aes128.ts`). */
export const SUFFIX = "-aes128";

export const withSuffix = (path: string): string => path.replace(/(\.[^./]*)?$/, (ext) => `${SUFFIX}${ext}`);

/** The IV the RFC gives a segment with no IV attribute: its media sequence number, big-endian, in 16 bytes. */
export function ivFor(sequence: number): Buffer {
  const iv = Buffer.alloc(16);
  iv.writeBigUInt64BE(BigInt(sequence), 8);
  return iv;
}

export function encryptSegment(bytes: Uint8Array, key: Uint8Array, iv: Uint8Array): Uint8Array {
  const cipher = createCipheriv("aes-128-cbc", key, iv);
  return Buffer.concat([cipher.update(bytes), cipher.final()]);
}

export function decryptSegment(bytes: Uint8Array, key: Uint8Array, iv: Uint8Array): Uint8Array {
  const decipher = createDecipheriv("aes-128-cbc", key, iv);
  return Buffer.concat([decipher.update(bytes), decipher.final()]);
}

export class AlreadyEncrypted extends Error {}

/**
 * The media playlist with a `#EXT-X-KEY:METHOD=AES-128,URI="<keyUri>",IV=0x...` before
 * each segment and each segment URI renamed by `rename`; and each segment with the
 * name it had, the name it gets, and its IV.
 */
export function encryptedMediaPlaylist(
  text: string,
  keyUri: string,
  rename: (uri: string) => string,
): { playlist: string; segments: { from: string; to: string; iv: Buffer }[] } {
  if (/^#EXT-X-KEY:/m.test(text)) throw new AlreadyEncrypted("the playlist is already encrypted");
  const first = Number(/^#EXT-X-MEDIA-SEQUENCE:(\d+)/m.exec(text)?.[1] ?? 0);
  const segments: { from: string; to: string; iv: Buffer }[] = [];
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed.startsWith("#EXTINF:")) {
      const iv = ivFor(first + segments.length);
      out.push(`#EXT-X-KEY:METHOD=AES-128,URI="${keyUri}",IV=0x${iv.toString("hex")}`);
    }
    if (trimmed !== "" && !trimmed.startsWith("#")) {
      const to = rename(trimmed);
      segments.push({ from: trimmed, to, iv: ivFor(first + segments.length) });
      out.push(to);
      continue;
    }
    out.push(line);
  }
  // IV needs EXT-X-VERSION 2 or later (RFC 8216 7); ffmpeg writes 3.
  const playlist = out.join("\n").replace(/^#EXT-X-VERSION:1$/m, "#EXT-X-VERSION:2");
  return { playlist, segments };
}

/** The master with each variant URI renamed (the lines after EXT-X-STREAM-INF). */
export function renamedMaster(text: string, rename: (uri: string) => string): string {
  const lines = text.split("\n");
  return lines
    .map((line, i) => (i > 0 && lines[i - 1]!.trim().startsWith("#EXT-X-STREAM-INF:") && line.trim() && !line.startsWith("#") ? rename(line.trim()) : line))
    .join("\n");
}

/** `to` relative to the folder of `from` (both store keys): the URI a playlist at `from` names `to` by. */
export function relativeUri(from: string, to: string): string {
  const base = from.split("/").slice(0, -1);
  const target = to.split("/");
  let common = 0;
  while (common < base.length && common < target.length - 1 && base[common] === target[common]) common++;
  return [...base.slice(common).map(() => ".."), ...target.slice(common)].join("/");
}
