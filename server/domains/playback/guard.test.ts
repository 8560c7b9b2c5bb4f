import { describe, expect, test } from "bun:test";
import { withToken } from "./guard.ts";

describe("playlists written for a token", () => {
  test("each segment, variant and URI attribute carries the token; comments and absolute URLs stay", () => {
    const master = [
      "#EXTM3U",
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",URI="audio/index.m3u8"',
      "#EXT-X-STREAM-INF:BANDWIDTH=800000",
      "360p/index.m3u8",
      '#EXT-X-MAP:URI="init.mp4?v=1"',
      "https://elsewhere.test/x.ts",
      "",
    ].join("\n");
    expect(withToken(master, "a.b.c")).toBe(
      [
        "#EXTM3U",
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",URI="audio/index.m3u8?token=a.b.c"',
        "#EXT-X-STREAM-INF:BANDWIDTH=800000",
        "360p/index.m3u8?token=a.b.c",
        '#EXT-X-MAP:URI="init.mp4?v=1&token=a.b.c"',
        "https://elsewhere.test/x.ts",
        "",
      ].join("\n"),
    );
  });
});
