import { describe, expect, test } from "bun:test";
import { authoredMediaPlaylist, bitrates, masterPlaylist, mediaSegments, variantUris } from "./hls-authoring.ts";

const FFMPEG_MEDIA = `#EXTM3U
#EXT-X-VERSION:6
#EXT-X-TARGETDURATION:4
#EXT-X-MEDIA-SEQUENCE:0
#EXT-X-PLAYLIST-TYPE:VOD
#EXT-X-INDEPENDENT-SEGMENTS
#EXTINF:4.160000,
seg_000.ts
#EXTINF:3.840000,
seg_001.ts
#EXTINF:1.000000,
seg_002.ts
`;

describe("media playlists", () => {
  test("segments are read in order with their EXTINF", () => {
    expect(mediaSegments(FFMPEG_MEDIA)).toEqual([
      { uri: "seg_000.ts", duration: 4.16 },
      { uri: "seg_001.ts", duration: 3.84 },
      { uri: "seg_002.ts", duration: 1 },
    ]);
  });

  test("TARGETDURATION becomes the longest EXTINF rounded up (ffmpeg wrote 4 for 4.16) and the list is ended", () => {
    const out = authoredMediaPlaylist(FFMPEG_MEDIA);
    expect(out).toContain("#EXT-X-TARGETDURATION:5\n");
    expect(out).not.toContain("#EXT-X-TARGETDURATION:4\n");
    expect(out.trimEnd().endsWith("seg_002.ts\n#EXT-X-ENDLIST")).toBe(true);
    // Already ended: not twice.
    expect(authoredMediaPlaylist(out).match(/#EXT-X-ENDLIST/g)).toHaveLength(1);
    // A whole-second EXTINF keeps its own value.
    expect(authoredMediaPlaylist("#EXTM3U\n#EXT-X-TARGETDURATION:9\n#EXTINF:4.000000,\na.ts\n")).toContain("#EXT-X-TARGETDURATION:4\n");
  });

  test("peak and average bit rates count every byte of every segment", () => {
    const segments = mediaSegments(FFMPEG_MEDIA);
    // 520 kB in 4.16 s is 1,000,000 bit/s; 384 kB in 3.84 s is 800,000; 150 kB in 1 s is 1,200,000: the short last segment is the peak.
    expect(bitrates(segments, [520_000, 384_000, 150_000])).toEqual({ peak: 1_200_000, average: Math.ceil((1_054_000 * 8) / 9) });
  });
});

describe("the master playlist", () => {
  test("every variant with BANDWIDTH, AVERAGE-BANDWIDTH, CODECS, RESOLUTION and FRAME-RATE, the smallest picture first", () => {
    const text = masterPlaylist([
      { uri: "720p/index.m3u8", width: 1280, height: 720, frameRate: 30000 / 1001, codecs: ["avc1.64001f", "mp4a.40.2"], peak: 3_000_001, average: 2_500_000 },
      { uri: "360p/index.m3u8", width: 640, height: 360, frameRate: 25, codecs: ["avc1.42c01e"], peak: 800_000, average: 700_000 },
    ]);
    expect(text).toBe(
      [
        "#EXTM3U",
        "#EXT-X-VERSION:6",
        "#EXT-X-INDEPENDENT-SEGMENTS",
        '#EXT-X-STREAM-INF:BANDWIDTH=800000,AVERAGE-BANDWIDTH=700000,CODECS="avc1.42c01e",RESOLUTION=640x360,FRAME-RATE=25.000',
        "360p/index.m3u8",
        '#EXT-X-STREAM-INF:BANDWIDTH=3000001,AVERAGE-BANDWIDTH=2500000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=29.970',
        "720p/index.m3u8",
        "",
      ].join("\n"),
    );
    expect(variantUris(text)).toEqual(["360p/index.m3u8", "720p/index.m3u8"]);
  });
});
