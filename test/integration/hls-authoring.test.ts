/**
 * Streams that pass Apple's HLS authoring rules and RFC 8216, on the ladder and the
 * copy paths alike, and for videos encoded before (the playlist rewrite job): every
 * playlist read by m3u8-parser, every segment measured and probed (test/helpers/hls.ts).
 * CODECS from the real profile and level, RESOLUTION, FRAME-RATE, BANDWIDTH at least
 * the peak segment bit rate of all of a segment's bytes, AVERAGE-BANDWIDTH,
 * EXT-X-ENDLIST, no EXTINF over TARGETDURATION, every segment starting on a key frame.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { join, relative } from "node:path";
import { tmpdir } from "node:os";
import { hlsArgs, planLadder } from "../../server/domains/encoding/ladder.ts";
import { probe } from "../../server/domains/encoding/probe.ts";
import { outputPrefix } from "../../server/storage/media-keys.ts";
import { startEncoder } from "../../server/workers/encoder.ts";
import { runNextPlaylistRewrite } from "../../server/workers/playlist-rewriter.ts";
import { appOnAPort, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { AVC_PROFILE, auditHls, type VariantAudit } from "../helpers/hls.ts";
import { clip } from "../helpers/media.ts";

setDefaultTimeout(120_000);

let t: TestApp;
let ws: TestWorkspace;
let server: ReturnType<typeof Bun.serve>;
let stopEncoder: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ t, ws, server } = await appOnAPort());
  stopEncoder = startEncoder(t.deps, { pollMs: 100 });
}, 60_000);

afterAll(async () => {
  await stopEncoder?.();
  server?.stop();
});

const mediaUrl = (key: string) => `http://127.0.0.1:${server.port}/media/${key}`;
const hlsKey = async (id: number) => (await t.deps.sql`SELECT landscape_hls FROM videos WHERE id = ${id}`)[0]!.landscape_hls as string;

async function encoded(file: string): Promise<{ id: number; code: string }> {
  const video = await t.createVideo(ws, { title: "Authoring" });
  expect((await t.upload(ws, video.id, file)).status).toBe(202);
  const end = Date.now() + 90_000;
  for (;;) {
    const status = (await t.call("GET", `/api/v1/videos/${video.id}/status`, { token: ws.token })).body;
    if (status.status === "ready") return video;
    if (status.status !== "processing" || Date.now() > end) throw new Error(`video ${video.id}: ${JSON.stringify(status)}`);
    await Bun.sleep(100);
  }
}

/** Every rule of the header, for every variant. */
function expectAuthored(master: Awaited<ReturnType<typeof auditHls>>["master"], variants: VariantAudit[]): void {
  expect(master.independentSegments).toBe(true);
  expect(variants.length).toBeGreaterThan(0);
  for (const v of variants) {
    const a = v.attributes;
    const [, profile, , level] = /^avc1\.([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2}),mp4a\.40\.2$/.exec(a.CODECS ?? "") ?? [];
    expect([v.uri, profile, level]).toEqual([v.uri, AVC_PROFILE[v.probe.profile], v.probe.level.toString(16).padStart(2, "0")]);
    expect(v.probe.audioProfile).toBe("LC");
    expect(a.RESOLUTION).toEqual({ width: v.probe.width, height: v.probe.height });
    expect(a["FRAME-RATE"]).toBeCloseTo(v.probe.frameRate, 3);
    expect(a.BANDWIDTH!).toBeGreaterThanOrEqual(v.peak);
    expect(Math.abs(Number(a["AVERAGE-BANDWIDTH"]) - v.average)).toBeLessThanOrEqual(1);
    expect(Number(a["AVERAGE-BANDWIDTH"])).toBeLessThanOrEqual(a.BANDWIDTH!);
    expect(v.endList).toBe(true);
    expect(v.longestExtinf).toBeLessThanOrEqual(v.targetDuration!);
    expect(v.notKeyFirst).toEqual([]);
  }
  // The smallest picture first: the variant Apple's players start with.
  const areas = variants.map((v) => v.probe.width * v.probe.height);
  expect(areas).toEqual([...areas].sort((x, y) => x - y));
}

describe("HLS authoring", () => {
  test("the ladder path: two encoded rungs", async () => {
    const video = await encoded(await clip("hd"));
    const key = await hlsKey(video.id);
    const { master, variants } = await auditHls(mediaUrl(key));
    expect(variants.map((v) => v.uri)).toEqual(["360p/index.m3u8", "720p/index.m3u8"]);
    expectAuthored(master, variants);
    // Measured, so a higher rung declares more than a lower one.
    expect(variants[1]!.attributes.BANDWIDTH!).toBeGreaterThan(variants[0]!.attributes.BANDWIDTH!);
  });

  test("the copy path: a source that fits a rung is repackaged, with its own profile and level in CODECS", async () => {
    const video = await encoded(await clip("long"));
    const { master, variants } = await auditHls(mediaUrl(await hlsKey(video.id)));
    expect(variants.map((v) => [v.uri, v.probe.profile])).toEqual([["360p/index.m3u8", "Constrained Baseline"]]);
    expectAuthored(master, variants);
  });

  test("videos encoded before: the rewrite job authors their playlists without re-encoding and republishes the player", async () => {
    // A video as the encoder left it before: ffmpeg's own playlists (no CODECS on the copy path, BANDWIDTH from the settings).
    const video = await t.createVideo(ws, { title: "Old video" });
    const source = await clip("hd");
    const plan = planLadder(await probe("ffprobe", source));
    const work = await mkdtemp(join(tmpdir(), "fl-old-hls-"));
    const jobId = 900_000 + Math.floor(Math.random() * 90_000);
    const prefix = outputPrefix(video.code, "landscape", jobId);
    try {
      const ffmpeg = Bun.spawn(["ffmpeg", ...hlsArgs(source, work, plan)], { stderr: "pipe" });
      expect(await ffmpeg.exited).toBe(0);
      for (const e of await readdir(work, { recursive: true, withFileTypes: true }))
        if (e.isFile()) await t.deps.blobs.media.put(prefix + relative(work, join(e.parentPath, e.name)), Bun.file(join(e.parentPath, e.name)));
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    const media = {
      status: "ready",
      progress: 100,
      error: null,
      job_id: jobId,
      hls_prefix: prefix,
      renditions: plan.rungs.map((r) => ({ name: r.name, w: r.width, h: r.height, copied: r.copy })),
    };
    await t.deps.sql`UPDATE videos SET landscape_media = ${t.deps.sql.json(media)}, landscape_hls = ${prefix + "master.m3u8"} WHERE id = ${video.id}`;
    const before = await (await fetch(mediaUrl(prefix + "master.m3u8"))).text();
    expect(before).not.toContain("AVERAGE-BANDWIDTH");

    await t.deps.sql`UPDATE playlist_rewrites SET state = 'queued', after_video = 0, locked_by = NULL, locked_until = NULL WHERE version = 2`;
    expect(await runNextPlaylistRewrite(t.deps)).toBe(true);
    const [job] = await t.deps.sql`SELECT state, rewritten FROM playlist_rewrites WHERE version = 2`;
    expect(job!.state).toBe("done");
    expect(job!.rewritten).toBeGreaterThanOrEqual(1);

    const key = await hlsKey(video.id);
    expect(key).toBe(`${prefix}master-v2.m3u8`);
    const { master, variants } = await auditHls(mediaUrl(key));
    expect(variants.map((v) => v.uri)).toEqual(["360p/index-v2.m3u8", "720p/index-v2.m3u8"]);
    expectAuthored(master, variants);
    // The old files stay as they were (caches and older bundles hold them).
    expect(await (await fetch(mediaUrl(prefix + "master.m3u8"))).text()).toBe(before);
    const [row] = await t.deps.sql`SELECT landscape_media FROM videos WHERE id = ${video.id}`;
    expect(row!.landscape_media.playlists).toBe(2);
    // The API answers the new master, and the republished bundle carries it.
    expect((await t.call("GET", `/api/v1/videos/${video.id}`, { token: ws.token })).body.video.landscape_hls).toBe(mediaUrl(key));
    const entry = await t.deps.blobs.cdnA.get(`p/${video.code}.js`);
    expect(await new Response(entry!.body).text()).toContain("master-v2.m3u8");
    // Done once: nothing more to claim.
    expect(await runNextPlaylistRewrite(t.deps)).toBe(false);
  });
});
