/**
 * From an accepted file to a playable HLS stream, with the real ffmpeg and the
 * encoder worker running in this process: docs/api.md "Video processing status",
 * the status, embed and config reads, replacement, failure and a dead worker.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startEncoder } from "../../server/workers/encoder.ts";
import { BASE, testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { clip, ffprobeStreams } from "../helpers/media.ts";
import { parse } from "../helpers/hls.ts";
import { BlobErrorCode, NO_BYTES_YET } from "../../server/storage/blob/blob-store.ts";
import { privateBlob } from "../../server/storage/media-keys.ts";

// Real engines and a real ffmpeg on a shared 2-core machine: seconds, not milliseconds.
setDefaultTimeout(90_000);

let t: TestApp;
let ws: TestWorkspace;
let stopEncoder: (() => Promise<void>) | undefined;
let server: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  t = await testApp({ config: { limits: { readsPerMinute: 100_000, writesPerMinute: 100_000 } } });
  ws = await t.workspace();
  server = t.app.listen({ port: 0, hostname: "127.0.0.1" }).server!;
  stopEncoder = startEncoder(t.deps, { pollMs: 100 });
}, 60_000);

afterAll(async () => {
  await stopEncoder?.();
  server?.stop();
});

/** URLs carry PUBLIC_URL; the test server listens on another port. */
const live = (url: string) => url.replace(BASE, `http://127.0.0.1:${server.port}`);

/** The app and workspace a helper talks to: the file's own unless a test brings another. */
type Target = { app: TestApp; ws: TestWorkspace };
const own = (): Target => ({ app: t, ws });

const newVideo = (title = "Clip", to: Target = own()) => to.app.createVideo(to.ws, { title });

async function upload(videoId: number, file: string, orientation = "landscape", to: Target = own()) {
  const res = await to.app.upload(to.ws, videoId, file, orientation);
  expect(res.status).toBe(202);
  return res.body as { video: any };
}

/** Polls the status read until it leaves `processing`; records every progress seen. */
async function settle(videoId: number, timeoutMs = 45_000, to: Target = own()): Promise<{ status: any; progress: number[] }> {
  const progress: number[] = [];
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const res = await to.app.call("GET", `/api/v1/videos/${videoId}/status`, { token: to.ws.token });
    for (const o of Object.values(res.body.orientations) as ({ progress: number } | null)[]) if (o) progress.push(o.progress);
    if (res.body.status !== "processing") return { status: res.body, progress };
    await Bun.sleep(100);
  }
  throw new Error(`video ${videoId} still processing after ${timeoutMs} ms`);
}

const get = (path: string) => t.call("GET", `/api/v1${path}`, { token: ws.token });

describe("encoding", () => {
  test("H.264/AAC landscape clip: processing → ready, embed filled, urls, /config, a valid master playlist", async () => {
    const video = await newVideo();
    const accepted = await upload(video.id, await clip("landscape"));
    expect(accepted.video.status).toBe("processing");
    const { status, progress } = await settle(video.id);
    expect(status).toMatchObject({
      id: video.id,
      code: video.code,
      status: "ready",
      orientations: { landscape: { status: "ready", progress: 100, error: null }, portrait: null },
      status_url: `${BASE}/api/v1/videos/${video.id}/status`,
    });
    // docs/api.md: progress moves in steps.
    for (const p of progress) expect(p % 10).toBe(0);
    expect(status.embed.script_url).toBe(`${BASE}/cdn/p/${video.code}.js`);
    expect(status.embed.html).toContain(video.code);
    expect(status.embed.plain_html).toContain('data-mode="plain"');

    const full = (await get(`/videos/${video.id}`)).body.video;
    expect(full.landscape_hls).toStartWith(`${BASE}/media/videos/${video.code}/landscape/`);
    expect(full.landscape_hls).toEndWith("/master.m3u8");
    expect(full.landscape_thumb).toEndWith("/poster.jpg");
    expect(full.portrait_hls).toBeNull();

    const config = await get(`/videos/${video.id}/config`);
    expect(config.status).toBe(200);
    expect(config.body).toEqual({
      config: { workspace_code: ws.code, video_code: video.code, landscape: { w: 640, h: 360, padding: "56.25%", aspectRatio: "16:9" }, portrait: null },
      timed_events_options: [],
    });

    // The source already fits the 360p rung: repackaged, not re-encoded.
    const [row] = await t.deps.sql`SELECT landscape_media FROM videos WHERE id = ${video.id}`;
    expect(row!.landscape_media.renditions).toEqual([{ name: "360p", w: 640, h: 360, copied: true }]);

    const probe = await ffprobeStreams(live(full.landscape_hls));
    expect(probe.error).toBe("");
    expect(probe.ok).toBe(true);
    expect(probe.streams).toContainEqual(expect.objectContaining({ codec_type: "video", codec_name: "h264", width: 640, height: 360 }));
    expect(probe.streams).toContainEqual(expect.objectContaining({ codec_type: "audio", codec_name: "aac" }));

    const poster = await fetch(live(full.landscape_thumb));
    expect(poster.status).toBe(200);
    expect(poster.headers.get("content-type")).toBe("image/jpeg");
    const jpeg = new Uint8Array(await poster.arrayBuffer());
    expect([jpeg[0], jpeg[1]]).toEqual([0xff, 0xd8]);

    const playlist = await (await fetch(live(full.landscape_hls))).text();
    expect(playlist).toStartWith("#EXTM3U");
    const variant = await (await fetch(live(full.landscape_hls.replace("master.m3u8", "360p/index.m3u8")))).text();
    expect(variant).toContain("#EXT-X-ENDLIST");
    for (const d of [...variant.matchAll(/#EXTINF:([\d.]+)/g)].map((m) => Number(m[1]))) expect(d).toBeLessThanOrEqual(4.5);
  });

  test("/embed gives the standard snippet, or the plain one with mode=plain", async () => {
    const video = await newVideo();
    const standard = await get(`/videos/${video.id}/embed`);
    expect(standard.status).toBe(200);
    expect(standard.body).toEqual({ html: expect.stringContaining(video.code), mode: "default", timed_events: [] });
    expect(standard.body.html).not.toContain("plain");
    const plain = await get(`/videos/${video.id}/embed?mode=plain`);
    expect(plain.body.mode).toBe("plain");
    expect(plain.body.html).toContain('data-mode="plain"');
    for (const path of ["/videos/987654321/embed", "/videos/987654321/config", "/videos/x/config"]) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: "NOT_FOUND", message: "Video not found" } });
    }
  });

  test("portrait clip: a portrait ladder, /config portrait 9:16, the video opens in portrait", async () => {
    const video = await newVideo();
    await upload(video.id, await clip("portrait"), "portrait");
    const { status } = await settle(video.id);
    expect(status.status).toBe("ready");
    expect(status.orientations).toEqual({ landscape: null, portrait: { status: "ready", progress: 100, error: null } });
    const config = (await get(`/videos/${video.id}/config`)).body.config;
    expect(config.portrait).toEqual({ w: 360, h: 640, padding: "177.7778%", aspectRatio: "9:16" });
    expect(config.landscape).toBeNull();
    const full = (await get(`/videos/${video.id}`)).body.video;
    expect(full.default_orientation).toBe("portrait");
    expect(full.portrait_hls).toContain(`/videos/${video.code}/portrait/`);
    const probe = await ffprobeStreams(live(full.portrait_hls));
    expect(probe.ok).toBe(true);
    expect(probe.streams).toContainEqual(expect.objectContaining({ codec_type: "video", width: 360, height: 640 }));
  });

  test("VP9/Opus webm is re-encoded to H.264/AAC", async () => {
    const video = await newVideo();
    await upload(video.id, await clip("vp9"));
    const { status } = await settle(video.id);
    expect(status.status).toBe("ready");
    const [row] = await t.deps.sql`SELECT landscape_media FROM videos WHERE id = ${video.id}`;
    // 320x180 is under the lowest rung: one rendition at the source size, never upscaled.
    expect(row!.landscape_media.renditions).toEqual([{ name: "180p", w: 320, h: 180, copied: false }]);
    const probe = await ffprobeStreams(live((await get(`/videos/${video.id}`)).body.video.landscape_hls));
    expect(probe.ok).toBe(true);
    expect(probe.streams.map((s) => s.codec_name).sort()).toEqual(["aac", "h264"]);
  });

  test("a corrupt file (mp4 signature, broken content) ends in error with a sentence; a fresh file then brings it to ready", async () => {
    const video = await newVideo();
    await upload(video.id, await clip("corrupt"));
    const { status } = await settle(video.id);
    expect(status.status).toBe("error");
    expect(status.embed).toBeNull();
    const landscape = status.orientations.landscape;
    expect(landscape.status).toBe("error");
    expect(landscape.error).toMatch(/^The file could not be decoded: .+\.$/);
    expect(landscape.error).not.toContain("/tmp/");
    expect((await get(`/videos/${video.id}`)).body.video.landscape_hls).toBeNull();

    // error → (upload of a fresh file) → processing → ready
    const again = await upload(video.id, await clip("landscape"));
    expect(again.video.status).toBe("processing");
    expect((await settle(video.id)).status.status).toBe("ready");
  });

  test("one orientation failing makes the video error even while the other is ready", async () => {
    const video = await newVideo();
    await upload(video.id, await clip("landscape"));
    expect((await settle(video.id)).status.status).toBe("ready");
    await upload(video.id, await clip("corrupt"), "portrait");
    const { status } = await settle(video.id);
    expect(status.status).toBe("error");
    expect(status.orientations.landscape.status).toBe("ready");
    expect(status.orientations.portrait.status).toBe("error");
  });

  test("a new upload replaces the old files and keeps id, code and settings", async () => {
    const video = await newVideo("Replace me");
    await upload(video.id, await clip("landscape"));
    await settle(video.id);
    const before = (await get(`/videos/${video.id}`)).body.video;
    const settingsBefore = (await get(`/videos/${video.id}/settings`)).body;

    await upload(video.id, await clip("vp9"));
    const { status } = await settle(video.id);
    expect(status.status).toBe("ready");
    const after = (await get(`/videos/${video.id}`)).body.video;
    expect(after.id).toBe(before.id);
    expect(after.code).toBe(before.code);
    expect(after.title).toBe("Replace me");
    expect((await get(`/videos/${video.id}/settings`)).body).toEqual(settingsBefore);
    expect(after.landscape_hls).not.toBe(before.landscape_hls);
    expect((await get(`/videos/${video.id}/config`)).body.config.landscape).toMatchObject({ w: 320, h: 180 });
    // The old renditions and the old source go right after the new ones are live
    // (a player may still be reading them until then).
    const sources = await t.deps.sql`SELECT source_key FROM encode_jobs WHERE video_id = ${video.id} ORDER BY id`;
    const headPrivate = (stored: string) => {
      const at = privateBlob(t.deps.blobs, stored);
      return at.store.head(at.key);
    };
    for (const until = Date.now() + 10_000; Date.now() < until; await Bun.sleep(50)) {
      if ((await headPrivate(sources[0]!.source_key)) === undefined) break;
    }
    expect((await fetch(live(before.landscape_hls))).status).toBe(404);
    expect(await headPrivate(sources[0]!.source_key)).toBeUndefined();
    expect(sources[1]!.source_key).toStartWith("private/sources/");
    expect(await headPrivate(sources[1]!.source_key)).toBeDefined();
  });
});

describe("keys, not URLs, at rest", () => {
  test("a ready video stores media keys; another PUBLIC_URL or S3_PUBLIC_URL answers with its own origin, nothing republished", async () => {
    const video = await newVideo();
    await upload(video.id, await clip("landscape"));
    expect((await settle(video.id)).status.status).toBe("ready");
    const [row] = await t.deps.sql`SELECT landscape_hls, landscape_thumb FROM videos WHERE id = ${video.id}`;
    expect(row!.landscape_hls).toMatch(new RegExp(`^videos/${video.code}/landscape/\\d+/master\\.m3u8$`));
    expect(row!.landscape_thumb).toMatch(new RegExp(`^videos/${video.code}/landscape/\\d+/poster\\.jpg$`));

    const moved = await testApp({ sql: t.deps.sql, config: { publicUrl: "https://video.example.com" } });
    const answered = (await moved.call("GET", `/api/v1/videos/${video.id}`, { token: ws.token })).body.video;
    expect(answered.landscape_hls).toBe(`https://video.example.com/media/${row!.landscape_hls}`);
    expect(answered.landscape_thumb).toBe(`https://video.example.com/media/${row!.landscape_thumb}`);
    const bucket = await testApp({
      sql: t.deps.sql,
      config: { s3: { bucket: "b", region: "us-east-1", forcePathStyle: true, publicBaseUrl: "https://cdn.example.net/" } },
    });
    expect((await bucket.call("GET", `/api/v1/videos/${video.id}`, { token: ws.token })).body.video.landscape_hls).toBe(
      `https://cdn.example.net/media/${row!.landscape_hls}`,
    );
  });

  test("the upgrade turns the URLs older versions stored into keys, whatever origin built them", async () => {
    const video = await newVideo();
    const key = `videos/${video.code}/landscape/7/master.m3u8`;
    await t.deps
      .sql`UPDATE videos SET landscape_hls = ${`http://127.0.0.1:8080/media/${key}`}, portrait_thumb = ${`https://cdn.example.net/media/videos/${video.code}/portrait/8/poster.jpg`}, landscape_thumb = 'https://elsewhere.example/poster.jpg' WHERE id = ${video.id}`;
    await t.deps.sql.unsafe(await Bun.file(new URL("../../server/storage/postgres/0014_media_keys.sql", import.meta.url)).text());
    const [row] = await t.deps.sql`SELECT landscape_hls, portrait_hls, landscape_thumb, portrait_thumb FROM videos WHERE id = ${video.id}`;
    expect(row).toEqual({
      landscape_hls: key,
      portrait_hls: null,
      // Not one of ours: kept, and answered as it is.
      landscape_thumb: "https://elsewhere.example/poster.jpg",
      portrait_thumb: `videos/${video.code}/portrait/8/poster.jpg`,
    });
    expect((await get(`/videos/${video.id}`)).body.video.landscape_thumb).toBe("https://elsewhere.example/poster.jpg");
  });
});

describe("deleting a video", () => {
  test("removes its renditions, poster, player bundle, source and unfinished uploads", async () => {
    const video = await newVideo("Doomed");
    await upload(video.id, await clip("landscape"));
    expect((await settle(video.id)).status.status).toBe("ready");
    // An unfinished resumable upload of the other orientation, one chunk written.
    const init = await t.call("POST", `/api/v1/videos/${video.id}/upload/init`, {
      token: ws.token,
      body: { filename: "p.mp4", size: 9 * 1024 * 1024, mime_type: "video/mp4", orientation: "portrait" },
    });
    expect(init.status).toBe(201);
    const chunk = await t.call("PATCH", init.body.upload_url, {
      token: ws.token,
      headers: { "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0" },
      raw: new Uint8Array(8 * 1024 * 1024),
    });
    expect(chunk.status).toBe(200);

    const full = (await get(`/videos/${video.id}`)).body.video;
    const [row] = await t.deps.sql`SELECT landscape_media FROM videos WHERE id = ${video.id}`;
    const [session] = await t.deps.sql`SELECT blob_key, blob_handle FROM upload_sessions WHERE video_id = ${video.id} AND state = 'open'`;
    const media = t.deps.blobs.media;
    const keys = {
      playlist: new URL(full.landscape_hls).pathname.replace(/^\/media\//, ""),
      poster: new URL(full.landscape_thumb).pathname.replace(/^\/media\//, ""),
    };
    const source = privateBlob(t.deps.blobs, row!.landscape_media.source_key as string);
    const chunks = privateBlob(t.deps.blobs, session!.blob_key);
    for (const key of Object.values(keys)) expect(await media.head(key)).toBeDefined();
    expect(await source.store.head(source.key)).toBeDefined();
    expect(await t.deps.blobs.cdnA.head(`p/${video.code}.js`)).toBeDefined();
    expect(await t.deps.blobs.cdnB.head(`p/${video.code}.js`)).toBeDefined();

    const deleted = await t.call("DELETE", `/api/v1/videos/${video.id}`, { token: ws.token });
    expect(deleted.status).toBe(200);
    for (const key of Object.values(keys)) expect(await media.head(key)).toBeUndefined();
    expect(await source.store.head(source.key)).toBeUndefined();
    expect(await Array.fromAsync(media.list(`videos/${video.code}/`))).toEqual([]);
    expect(await t.deps.blobs.cdnA.head(`p/${video.code}.js`)).toBeUndefined();
    expect(await t.deps.blobs.cdnB.head(`p/${video.code}.js`)).toBeUndefined();
    // The unfinished upload is aborted: its handle can no longer be completed.
    await expect(chunks.store.completeChunked(chunks.key, session!.blob_handle, NO_BYTES_YET)).rejects.toMatchObject({
      code: BlobErrorCode.NoSuchUpload,
    });
    const served = await fetch(live(full.landscape_hls));
    expect(served.status).toBe(404);
  });
});

describe("a worker that dies mid-job", () => {
  /** A video whose job a worker claimed `attempts` times and then died: running, with a lease that has run out. */
  async function abandoned(attempts: number) {
    await stopEncoder?.();
    stopEncoder = undefined;
    const video = await newVideo();
    await upload(video.id, await clip("landscape"));
    await t.deps.sql`UPDATE encode_jobs SET state = 'running', attempts = ${attempts}, locked_by = 'dead-worker', locked_until = now() - interval '1 second'
                     WHERE video_id = ${video.id}`;
    stopEncoder = startEncoder(t.deps, { pollMs: 100 });
    return video;
  }

  test("its lease lapses and another worker takes the job to ready", async () => {
    const video = await abandoned(1);
    const { status } = await settle(video.id);
    expect(status.status).toBe("ready");
    const [job] = await t.deps.sql`SELECT state, attempts, locked_by FROM encode_jobs WHERE video_id = ${video.id}`;
    expect(job!.state).toBe("done");
    expect(job!.attempts).toBe(2);
    expect(job!.locked_by).not.toBe("dead-worker");
  });

  test("a job that keeps killing its workers is failed with a sentence after 3 attempts", async () => {
    const video = await abandoned(3);
    const { status } = await settle(video.id);
    expect(status.status).toBe("error");
    expect(status.orientations.landscape.error).toMatch(/^The file could not be encoded: .+\.$/);
  });

  test("stop() hands a running job back to the queue", async () => {
    await stopEncoder?.();
    const video = await newVideo();
    await upload(video.id, await clip("big"));
    const encoder = startEncoder(t.deps, { pollMs: 50, graceMs: 0 });
    for (let i = 0; i < 100; i++) {
      const [job] = await t.deps.sql`SELECT state FROM encode_jobs WHERE video_id = ${video.id}`;
      if (job!.state === "running") break;
      await Bun.sleep(20);
    }
    await encoder();
    const [job] = await t.deps.sql`SELECT state, locked_by FROM encode_jobs WHERE video_id = ${video.id}`;
    expect(["queued", "done"]).toContain(job!.state);
    if (job!.state === "queued") expect(job!.locked_by).toBeNull();
    stopEncoder = startEncoder(t.deps, { pollMs: 100 });
    expect((await settle(video.id)).status.status).toBe("ready");
  });
});

describe("an ffmpeg without var_stream_map names (the registry's static build)", () => {
  // The optional dependency @ffmpeg-installer/ffmpeg ships a 2018 static build;
  // when it is not installed the system ffmpeg runs with the same arguments.
  let legacy: TestApp;
  let legacyWs: TestWorkspace;
  let stopLegacy: (() => Promise<void>) | undefined;
  const bundled = (() => {
    try {
      return (require("@ffmpeg-installer/ffmpeg") as { path: string }).path;
    } catch {
      return "ffmpeg";
    }
  })();

  beforeAll(async () => {
    // One job queue, two blob directories: only this app's encoder may claim jobs now.
    await stopEncoder?.();
    stopEncoder = undefined;
    legacy = await testApp({
      config: { limits: { readsPerMinute: 100_000, writesPerMinute: 100_000 }, media: { ...t.deps.config.media, ffmpegPath: bundled, legacyHls: true } },
    });
    legacyWs = await legacy.workspace();
    stopLegacy = startEncoder(legacy.deps, { pollMs: 100 });
  }, 60_000);
  afterAll(() => stopLegacy?.());

  test("two encoded rungs in named folders and a master playlist written by the encoder", async () => {
    const to = { app: legacy, ws: legacyWs };
    const { id } = await newVideo("HD", to);
    await upload(id, await clip("hd"), "landscape", to);
    const { status } = await settle(id, 60_000, to);
    expect(status.orientations.landscape).toEqual({ status: "ready", progress: 100, error: null });
    const [row] = await legacy.deps.sql`SELECT landscape_media, landscape_hls FROM videos WHERE id = ${id}`;
    expect(row!.landscape_media.renditions).toEqual([
      { name: "360p", w: 640, h: 360, copied: false },
      { name: "720p", w: 1280, h: 720, copied: false },
    ]);
    const key = row!.landscape_hls as string;
    const master = parse(await new Response((await legacy.deps.blobs.media.get(key))!.body).text());
    const variants = (master.playlists ?? []).map((p) => ({
      peak: p.attributes.BANDWIDTH!,
      average: Number(p.attributes["AVERAGE-BANDWIDTH"]),
      resolution: `${p.attributes.RESOLUTION!.width}x${p.attributes.RESOLUTION!.height}`,
      uri: p.uri,
    }));
    expect(variants.map((v) => [v.resolution, v.uri])).toEqual([
      ["640x360", "360p/index.m3u8"],
      ["1280x720", "720p/index.m3u8"],
    ]);
    for (const v of variants) {
      expect(v.average).toBeGreaterThan(50_000);
      expect(v.peak).toBeGreaterThanOrEqual(v.average);
    }
    const srv = legacy.app.listen({ port: 0, hostname: "127.0.0.1" }).server!;
    try {
      const probe = await ffprobeStreams(`http://127.0.0.1:${srv.port}/media/${row!.landscape_hls}`);
      expect(probe.error).toBe("");
      expect(probe.streams).toContainEqual(expect.objectContaining({ codec_type: "video", codec_name: "h264", width: 1280, height: 720 }));
      expect(probe.streams).toContainEqual(expect.objectContaining({ codec_type: "audio", codec_name: "aac" }));
    } finally {
      srv.stop();
    }
  });
});
