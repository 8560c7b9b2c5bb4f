/**
 * `/media/*` in embedded mode: encoded media served from the media BlobStore with
 * range requests, exact content types and CORS; uploaded sources stay private.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { BASE, testApp, type TestApp } from "../helpers/app.ts";
import { clip } from "../helpers/media.ts";
import { startS3rver, type S3rverHandle } from "../helpers/s3rver.ts";
import { createS3BlobStore } from "../../server/storage/blob/index.ts";
import { getPrivate, PRIVATE_PREFIX } from "../../server/storage/media-keys.ts";

// Real engines and a real ffmpeg on a shared 2-core machine: seconds, not milliseconds.
setDefaultTimeout(90_000);

let t: TestApp;
const prefix = `videos/${crypto.randomUUID()}/landscape/7/`;
const segment = new Uint8Array(1000).map((_, i) => i % 251);

beforeAll(async () => {
  t = await testApp();
  const store = t.deps.blobs.media;
  await store.put(`${prefix}master.m3u8`, "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=640x360\n360p/index.m3u8\n", {
    cacheControl: "public, max-age=31536000, immutable",
  });
  await store.put(`${prefix}360p/seg_000.ts`, segment);
  await store.put(`${prefix}poster.jpg`, new Uint8Array([0xff, 0xd8, 0xff, 0xd9]));
  await store.put("uploads/flup_00aa/source", "private source bytes");
  await t.deps.blobs.private.put("sources/flup_00aa/source", "private source bytes");
}, 60_000);

const get = (key: string, headers: Record<string, string> = {}, method = "GET") => t.app.handle(new Request(`${BASE}/media/${key}`, { method, headers }));

describe("media", () => {
  test("whole objects with their content type, cache headers and CORS", async () => {
    const playlist = await get(`${prefix}master.m3u8`, { Origin: "https://customer.example" });
    expect(playlist.status).toBe(200);
    expect(playlist.headers.get("content-type")).toBe("application/vnd.apple.mpegurl");
    expect(playlist.headers.get("access-control-allow-origin")).toBe("*");
    expect(playlist.headers.get("accept-ranges")).toBe("bytes");
    expect(playlist.headers.get("cache-control")).toContain("immutable");
    expect(await playlist.text()).toStartWith("#EXTM3U");

    const ts = await get(`${prefix}360p/seg_000.ts`);
    expect(ts.headers.get("content-type")).toBe("video/mp2t");
    expect(ts.headers.get("content-length")).toBe("1000");
    expect(new Uint8Array(await ts.arrayBuffer())).toEqual(segment);
    const poster = await get(`${prefix}poster.jpg`);
    expect(poster.headers.get("content-type")).toBe("image/jpeg");
    expect(new Uint8Array(await poster.arrayBuffer())).toEqual(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]));
  });

  test("range requests: 206 with Content-Range for a-b, a- and -n; 416 past the end", async () => {
    const cases: [string, number, number][] = [
      ["bytes=0-9", 0, 9],
      ["bytes=990-", 990, 999],
      ["bytes=-5", 995, 999],
      ["bytes=500-5000", 500, 999],
    ];
    for (const [range, start, end] of cases) {
      const res = await get(`${prefix}360p/seg_000.ts`, { Range: range });
      expect(res.status).toBe(206);
      expect(res.headers.get("content-range")).toBe(`bytes ${start}-${end}/1000`);
      expect(res.headers.get("content-length")).toBe(String(end - start + 1));
      expect(res.headers.get("access-control-expose-headers")).toContain("Content-Range");
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(segment.subarray(start, end + 1));
    }
    const past = await get(`${prefix}360p/seg_000.ts`, { Range: "bytes=1000-" });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe("bytes */1000");
  });

  test("HEAD, conditional GET and the CORS preflight", async () => {
    const head = await get(`${prefix}360p/seg_000.ts`, {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("1000");
    const full = await get(`${prefix}360p/seg_000.ts`);
    const etag = full.headers.get("etag");
    await full.body?.cancel();
    expect(etag).toBeString();
    expect((await get(`${prefix}360p/seg_000.ts`, { "If-None-Match": etag! })).status).toBe(304);
    const preflight = await get(
      `${prefix}master.m3u8`,
      { Origin: "https://customer.example", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "range" },
      "OPTIONS",
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("Range");
  });

  test("missing objects, uploaded sources and escaping paths are 404", async () => {
    const privateKeys = [
      "private/sources/flup_00aa/source",
      "sources/flup_00aa/source",
      "videos/../private/sources/flup_00aa/source",
      "../private/sources/flup_00aa/source",
    ];
    for (const key of [
      `${prefix}nope.ts`,
      "uploads/flup_00aa/source",
      `videos/../uploads/flup_00aa/source`,
      "videos/%2e%2e/uploads/flup_00aa/source",
      "",
      ...privateKeys,
    ]) {
      const res = await get(key);
      expect(res.status).toBe(404);
    }
  });
});

// README "The bucket: what is public": sources and export files live under `private/`,
// never under the media prefix a public URL serves, on either store.
describe.each(["fs", "s3"] as const)("sources and exports are never public (%s)", (kind) => {
  let app: TestApp;
  let s3: S3rverHandle | undefined;

  beforeAll(async () => {
    app = await testApp();
    if (kind === "s3") {
      s3 = await startS3rver();
      await s3.createBucket("frameline-private");
      app.deps.blobs.media = createS3BlobStore({
        bucket: "frameline-private",
        prefix: "media/",
        client: s3.client,
        publicBaseUrl: "https://bucket.example/media",
      });
      app.deps.blobs.private = createS3BlobStore({ bucket: "frameline-private", prefix: PRIVATE_PREFIX, client: s3.client });
    }
  }, 60_000);
  afterAll(async () => {
    await s3?.stop();
  });

  test("an uploaded source is stored under private/ and the media URL answers 404 for it", async () => {
    const ws = await app.workspace();
    const video = await app.createVideo(ws);
    expect((await app.upload(ws, video.id, await clip("landscape"))).status).toBe(202);
    const [job] = await app.deps.sql`SELECT source_key FROM encode_jobs WHERE video_id = ${video.id}`;
    const key = job!.source_key as string;
    expect(key).toMatch(/^private\/sources\/flup_[0-9a-f]+\/source$/);
    const stored = await getPrivate(app.deps.blobs, key);
    expect(stored!.size).toBeGreaterThan(1000);
    await stored!.body.cancel();
    // Nothing of it is in the media store, under either name.
    expect(await app.deps.blobs.media.head(key)).toBeUndefined();
    expect(await app.deps.blobs.media.head(key.slice(PRIVATE_PREFIX.length))).toBeUndefined();
    expect(await Array.fromAsync(app.deps.blobs.media.list("private/"))).toEqual([]);
    for (const path of [key, key.slice(PRIVATE_PREFIX.length), `videos/../${key}`, `videos/%2e%2e/${key}`]) {
      const res = await app.app.handle(new Request(`${BASE}/media/${path}`));
      expect(res.status).toBe(404);
    }
    if (s3) {
      // The bucket holds it beside media/, not inside it.
      expect(app.deps.blobs.private.publicUrl(key.slice(PRIVATE_PREFIX.length))).toBeUndefined();
    }
  });
});
