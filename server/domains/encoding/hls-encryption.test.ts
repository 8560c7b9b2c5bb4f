import { describe, expect, test } from "bun:test";
import { decryptSegment, encryptedMediaPlaylist, encryptSegment, ivFor, relativeUri, renamedMaster, withSuffix } from "./hls-encryption.ts";

const MEDIA =
  "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:4.000000,\nseg_000.ts\n#EXTINF:2.5,\nseg_001.ts\n#EXT-X-ENDLIST\n";

describe("HLS AES-128", () => {
  test("a segment round-trips with PKCS7 padding; the IV is the media sequence number", () => {
    const key = new Uint8Array(16).fill(7);
    const ts = new Uint8Array(188 * 3).map((_, i) => (i % 188 === 0 ? 0x47 : i % 251));
    const sealed = encryptSegment(ts, key, ivFor(5));
    expect(sealed.length).toBe(ts.length + 16 - (ts.length % 16));
    expect(sealed[0]).not.toBe(0x47);
    expect(decryptSegment(sealed, key, ivFor(5))).toEqual(ts);
    expect(ivFor(258).toString("hex")).toBe("00000000000000000000000000000102");
  });

  test("the media playlist gets a key tag with its own IV before each segment, and renamed segments", () => {
    const { playlist, segments } = encryptedMediaPlaylist(MEDIA, "../../../aes128.key", withSuffix);
    expect(playlist).toBe(
      "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:0\n" +
        '#EXT-X-KEY:METHOD=AES-128,URI="../../../aes128.key",IV=0x00000000000000000000000000000000\n#EXTINF:4.000000,\nseg_000-aes128.ts\n' +
        '#EXT-X-KEY:METHOD=AES-128,URI="../../../aes128.key",IV=0x00000000000000000000000000000001\n#EXTINF:2.5,\nseg_001-aes128.ts\n#EXT-X-ENDLIST\n',
    );
    expect(segments.map((s) => [s.from, s.to, s.iv.readUInt8(15)])).toEqual([
      ["seg_000.ts", "seg_000-aes128.ts", 0],
      ["seg_001.ts", "seg_001-aes128.ts", 1],
    ]);
    expect(() => encryptedMediaPlaylist(playlist, "k", withSuffix)).toThrow("already encrypted");
    // A playlist that starts later counts from its EXT-X-MEDIA-SEQUENCE.
    expect(encryptedMediaPlaylist(MEDIA.replace("SEQUENCE:0", "SEQUENCE:9"), "k", (u) => u).segments[1]!.iv.readUInt8(15)).toBe(10);
  });

  test("master variants renamed; names and relative URIs", () => {
    const master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=640x360\n360p/index.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2\n720p/index-v2.m3u8\n";
    expect(renamedMaster(master, withSuffix)).toBe(
      "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=640x360\n360p/index-aes128.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2\n720p/index-v2-aes128.m3u8\n",
    );
    expect(withSuffix("master.m3u8")).toBe("master-aes128.m3u8");
    expect(relativeUri("videos/c/landscape/7/360p/index.m3u8", "videos/c/aes128.key")).toBe("../../../aes128.key");
    expect(relativeUri("videos/c/landscape/7/index.m3u8", "videos/c/aes128.key")).toBe("../../aes128.key");
  });
});
