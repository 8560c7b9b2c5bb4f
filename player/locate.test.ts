import { describe, expect, test } from "bun:test";
import type { PlayerConfig } from "../contract/player-config.ts";
import { locate, mediaRef, resolveConfig } from "./locate.ts";

describe("locate", () => {
  test("a script served by the service: the events host is its root, the media under it", () => {
    expect(locate("https://video.example.com/cdn/p/abc.js")).toEqual({ events: "https://video.example.com", media: "https://video.example.com/media/" });
    expect(locate("https://example.com/frameline/cdn/s/t.js")).toEqual({
      events: "https://example.com/frameline",
      media: "https://example.com/frameline/media/",
    });
  });

  test("a script from a CDN names the events host and the media base in its query", () => {
    const script = `https://cdn.example.net/p/abc.js?e=${encodeURIComponent("https://video.example.com")}&m=${encodeURIComponent("https://media.example.net/media/")}`;
    expect(locate(script)).toEqual({ events: "https://video.example.com", media: "https://media.example.net/media/" });
  });
});

describe("media references", () => {
  const at = locate("https://video.example.com/cdn/p/abc.js");
  test("a key resolves against the media base; a URL of an older bundle is kept; none is null", () => {
    expect(mediaRef("videos/v1/landscape/7/master.m3u8", at)).toBe("https://video.example.com/media/videos/v1/landscape/7/master.m3u8");
    expect(mediaRef("http://old.example.com/media/videos/x.m3u8", at)).toBe("http://old.example.com/media/videos/x.m3u8");
    expect(mediaRef(null, at)).toBeNull();
  });

  test("resolveConfig turns every key of the video and the playlist into a URL and sets the events host", () => {
    const config = {
      video: {
        id: 1,
        code: "v1",
        title: "T",
        workspace_code: "w",
        default_orientation: "landscape",
        plain_mode: false,
        landscape: { hls: "videos/v1/l/1/master.m3u8", poster: "videos/v1/l/1/poster.jpg", w: 640, h: 360 },
        portrait: null,
      },
      settings: {},
      playlist: { items: [{ video_code: "v2", hls: "videos/v2/l/2/master.m3u8", poster: null, thumb_url: "https://img.example/t.jpg" }] },
    } as unknown as PlayerConfig;
    const resolved = resolveConfig(config, at);
    expect(resolved.events_url).toBe("https://video.example.com");
    expect(resolved.video.landscape).toEqual({
      hls: "https://video.example.com/media/videos/v1/l/1/master.m3u8",
      poster: "https://video.example.com/media/videos/v1/l/1/poster.jpg",
      w: 640,
      h: 360,
    });
    expect(resolved.playlist!.items[0]).toMatchObject({
      hls: "https://video.example.com/media/videos/v2/l/2/master.m3u8",
      poster: null,
      thumb_url: "https://img.example/t.jpg",
    });
    // An older bundle's events URL wins.
    expect(resolveConfig({ ...config, events_url: "https://old.example.com" }, at).events_url).toBe("https://old.example.com");
  });
});
