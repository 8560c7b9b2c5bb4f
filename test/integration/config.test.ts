/** Which ffmpeg the encoder runs: the setting, else the PATH, else the npm-shipped build. */
import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../server/config.ts";

describe("media tools", () => {
  test("FFMPEG_PATH / FFPROBE_PATH win", () => {
    const { media } = loadConfig({ FFMPEG_PATH: "/opt/ff/ffmpeg", FFPROBE_PATH: "/opt/ff/ffprobe", PATH: process.env.PATH });
    expect(media).toMatchObject({ ffmpegPath: "/opt/ff/ffmpeg", ffprobePath: "/opt/ff/ffprobe", legacyHls: false });
  });

  test("the system binaries on the PATH come next, with ffmpeg's own master playlist", () => {
    const { media } = loadConfig({ PATH: process.env.PATH });
    expect(media.ffmpegPath).toBe(Bun.which("ffmpeg")!);
    expect(media.ffprobePath).toBe(Bun.which("ffprobe")!);
    expect(media.legacyHls).toBe(false);
  });

  test("with nothing on the PATH, the npm-shipped static builds run (legacy HLS layout)", async () => {
    const { media } = loadConfig({ PATH: "" });
    expect(media.ffmpegPath).toContain("node_modules/@ffmpeg-installer/");
    expect(media.ffprobePath).toContain("node_modules/@ffprobe-installer/");
    expect(media.legacyHls).toBe(true);
    for (const bin of [media.ffmpegPath, media.ffprobePath]) {
      const proc = Bun.spawnSync([bin, "-version"]);
      expect(proc.exitCode).toBe(0);
      expect(proc.stdout.toString()).toContain("Copyright");
    }
  });
});

describe("CLICKHOUSE_CLUSTER", () => {
  test("unset: the one-node schema", () => {
    expect(loadConfig({ CLICKHOUSE_URL: "http://127.0.0.1:8123" }).clickhouseCluster).toBeUndefined();
  });

  test("a cluster name or a macro, on a ClickHouse server", () => {
    expect(loadConfig({ CLICKHOUSE_URL: "http://ch:8123", CLICKHOUSE_CLUSTER: "frameline" }).clickhouseCluster).toBe("frameline");
    expect(loadConfig({ CLICKHOUSE_URL: "http://ch:8123", CLICKHOUSE_CLUSTER: "{cluster}" }).clickhouseCluster).toBe("{cluster}");
  });

  test("refused without CLICKHOUSE_URL (embedded chDB is one node) or with a name that is not one", () => {
    expect(() => loadConfig({ CLICKHOUSE_CLUSTER: "frameline" })).toThrow("CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL");
    expect(() => loadConfig({ CLICKHOUSE_URL: "http://ch:8123", CLICKHOUSE_CLUSTER: "a' b" })).toThrow(/CLICKHOUSE_CLUSTER must be a cluster name/);
  });
});
