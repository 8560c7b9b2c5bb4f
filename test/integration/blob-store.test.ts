import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { BlobErrorCode, createFsBlobStore, createS3BlobStore, MIN_PART_SIZE, NO_BYTES_YET, PART_SIZE } from "../../server/storage/blob/index.ts";
import type { BlobStore, ChunkedState } from "../../server/storage/blob/index.ts";
import { startS3rver } from "../helpers/s3rver.ts";

/** What the contract needs from a backend, beyond the store itself. */
interface Harness {
  store: BlobStore;
  /** The same backend with a public base URL configured. */
  withPublicBase(base: string): BlobStore;
  /** Every raw name the backend holds under a key prefix, hidden files included. */
  rawNames(prefix: string): Promise<string[]>;
  stop(): Promise<void>;
}

type HarnessFactory = () => Promise<Harness>;

const fsHarness: HarnessFactory = async () => {
  const root = await mkdtemp(join(tmpdir(), "frameline-blobs-"));
  return {
    store: createFsBlobStore(root),
    withPublicBase: (base) => createFsBlobStore(root, { publicBaseUrl: base }),
    rawNames: async (prefix) => {
      const names = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
      return names
        .filter((e) => !e.isDirectory())
        .map((e) => relative(root, join(e.parentPath, e.name)))
        .filter((n) => n.startsWith(prefix));
    },
    stop: () => rm(root, { recursive: true, force: true }),
  };
};

const s3Harness: HarnessFactory = async () => {
  const s3 = await startS3rver();
  const bucket = "frameline-test";
  await s3.createBucket(bucket);
  const make = (publicBaseUrl?: string) => createS3BlobStore({ bucket, prefix: "store", client: s3.client, publicBaseUrl });
  return {
    store: make(),
    withPublicBase: make,
    rawNames: async (prefix) => {
      const out = await s3.client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `store/${prefix}` }));
      return (out.Contents ?? []).map((o) => o.Key!);
    },
    stop: () => s3.stop(),
  };
};

const text = (body: ReadableStream<Uint8Array>) => new Response(body).text();
const bytesOf = async (body: ReadableStream<Uint8Array>) => new Uint8Array(await new Response(body).arrayBuffer());
const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

/** A stream delivering `bytes` in small pieces, like a request body. */
function streamOf(bytes: Uint8Array, piece = 64 * 1024): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.slice(at, at + piece));
      at += piece;
    },
  });
}

/** Delivers `bytes`, then fails like a dropped connection. */
function droppedStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream({
    pull(controller) {
      if (sent) return controller.error(new Error("connection reset"));
      controller.enqueue(bytes);
      sent = true;
    },
  });
}

async function collect(store: BlobStore, prefix: string) {
  const out = [];
  for await (const info of store.list(prefix)) out.push(info);
  return out;
}

/** Chunk sizes around every S3 part boundary: staged, joined, cut into parts, and a short last part. */
const CHUNKS = [1, 400, MIN_PART_SIZE - 1, PART_SIZE, PART_SIZE + 1, 1000];

/** Appends `source` in chunks of `sizes`, checking the offset after each. */
async function appendAll(store: BlobStore, key: string, handle: string, source: Uint8Array, sizes: number[], from: ChunkedState = NO_BYTES_YET) {
  let state = from;
  for (const size of sizes) {
    const at = state.offset;
    state = await store.appendChunked(key, handle, state, streamOf(source.subarray(at, at + size)));
    expect(state.offset).toBe(at + size);
  }
  return state;
}

async function uploadInChunks(store: BlobStore, key: string, source: Uint8Array, sizes: number[], contentType?: string) {
  const handle = await store.beginChunked(key, { contentType });
  return store.completeChunked(key, handle, await appendAll(store, key, handle, source, sizes));
}

describe.each([
  ["fs", fsHarness],
  ["s3", s3Harness],
] as const)("BlobStore contract: %s", (kind, makeHarness) => {
  let h: Harness;
  let store: BlobStore;
  /** Each test works under its own prefix, so tests never see each other's blobs. */
  let p: string;
  const fresh = () => (p = `t-${randomUUID()}/`);

  beforeAll(async () => {
    h = await makeHarness();
    store = h.store;
  });
  afterAll(() => h.stop());

  test("kind names the backend", () => {
    expect(store.kind).toBe(kind);
  });

  test("put/get/head round trip of bytes", async () => {
    fresh();
    const bytes = randomBytes(3000);
    const put = await store.put(`${p}raw.bin`, bytes, { contentType: "application/x-custom", cacheControl: "max-age=60" });
    expect(put).toMatchObject({ key: `${p}raw.bin`, size: 3000, contentType: "application/x-custom", cacheControl: "max-age=60" });
    expect(put.etag).toBeString();

    const head = await store.head(`${p}raw.bin`);
    expect(head).toMatchObject({ key: `${p}raw.bin`, size: 3000, contentType: "application/x-custom", cacheControl: "max-age=60" });
    expect(head!.etag).toBe(put.etag!);
    expect(head!.lastModified).toBeInstanceOf(Date);

    const got = await store.get(`${p}raw.bin`);
    expect(got).toMatchObject({ size: 3000, contentType: "application/x-custom", etag: put.etag! });
    expect(got!.range).toBeUndefined();
    expect(await bytesOf(got!.body)).toEqual(new Uint8Array(bytes));
  });

  test("put/get round trip of a string, typed by extension", async () => {
    fresh();
    const json = JSON.stringify({ hello: "wörld" });
    const put = await store.put(`${p}doc.json`, json);
    expect(put.size).toBe(Buffer.byteLength(json));
    const got = await store.get(`${p}doc.json`);
    expect(got!.contentType).toBe("application/json");
    expect(await text(got!.body)).toBe(json);
  });

  test("put/get round trip of a stream of known size", async () => {
    fresh();
    const bytes = randomBytes(300_000);
    const put = await store.put(`${p}seg.m4s`, streamOf(bytes), { size: bytes.byteLength });
    expect(put.size).toBe(bytes.byteLength);
    const got = await store.get(`${p}seg.m4s`);
    expect(got!.contentType).toBe("video/iso.segment");
    expect(sha256(await bytesOf(got!.body))).toBe(sha256(bytes));
  });

  test("put of a stream of unknown size, larger than one part", async () => {
    fresh();
    const bytes = randomBytes(9 * 1024 * 1024 + 77);
    const put = await store.put(`${p}source.mp4`, streamOf(bytes, 1024 * 1024));
    expect(put.size).toBe(bytes.byteLength);
    const got = await store.get(`${p}source.mp4`);
    expect(got!.contentType).toBe("video/mp4");
    expect(sha256(await bytesOf(got!.body))).toBe(sha256(bytes));
  }, 30_000);

  test("put of a Blob", async () => {
    fresh();
    const bytes = randomBytes(5000);
    await store.put(`${p}thumb.jpg`, new Blob([bytes]));
    const got = await store.get(`${p}thumb.jpg`);
    expect(got!.contentType).toBe("image/jpeg");
    expect(await bytesOf(got!.body)).toEqual(new Uint8Array(bytes));
  });

  test("a stream whose length differs from size is refused", async () => {
    fresh();
    const short = store.put(`${p}short.txt`, streamOf(new TextEncoder().encode("new!")), { size: 10 });
    await expect(short).rejects.toMatchObject({ code: BlobErrorCode.ShortBody });
    const long = store.put(`${p}long.txt`, streamOf(new TextEncoder().encode("far too long")), { size: 3 });
    await expect(long).rejects.toMatchObject({ code: BlobErrorCode.LongBody });
  });

  // s3rver writes objects in place, so an aborted put truncates the old one there;
  // real S3, like the fs store, replaces an object only when its body is complete.
  test.if(kind === "fs")("a refused put leaves the old blob and no leftovers", async () => {
    fresh();
    await store.put(`${p}keep.txt`, "old");
    const short = store.put(`${p}keep.txt`, streamOf(new TextEncoder().encode("new!")), { size: 10 });
    await expect(short).rejects.toMatchObject({ code: BlobErrorCode.ShortBody });
    const dropped = store.put(`${p}keep.txt`, droppedStream(new TextEncoder().encode("new")));
    await expect(dropped).rejects.toThrow("connection reset");
    expect(await text((await store.get(`${p}keep.txt`))!.body)).toBe("old");
    expect(await h.rawNames(p)).toEqual([`${p}keep.txt`]);
  });

  test("content types follow the extension unless given", async () => {
    fresh();
    const expected: Record<string, string> = {
      "index.m3u8": "application/vnd.apple.mpegurl",
      "seg.ts": "video/mp2t",
      "seg.m4s": "video/iso.segment",
      "video.mp4": "video/mp4",
      "poster.jpg": "image/jpeg",
      "player.js": "text/javascript; charset=utf-8",
      "data.json": "application/json",
      "export.csv": "text/csv; charset=utf-8",
      "no-extension": "application/octet-stream",
    };
    for (const name of Object.keys(expected)) await store.put(`${p}${name}`, "x");
    for (const [name, type] of Object.entries(expected)) expect((await store.head(`${p}${name}`))!.contentType).toBe(type);
    // Rewriting without options drops a previously stored type.
    await store.put(`${p}video.mp4`, "x", { contentType: "application/x-other" });
    expect((await store.head(`${p}video.mp4`))!.contentType).toBe("application/x-other");
    await store.put(`${p}video.mp4`, "x");
    expect((await store.head(`${p}video.mp4`))!.contentType).toBe("video/mp4");
  });

  test("range get returns only the asked bytes", async () => {
    fresh();
    const bytes = randomBytes(1000);
    await store.put(`${p}r.bin`, bytes);
    const mid = await store.get(`${p}r.bin`, { start: 100, end: 199 });
    expect(mid!.size).toBe(1000);
    expect(mid!.range).toEqual({ start: 100, end: 199 });
    expect(await bytesOf(mid!.body)).toEqual(new Uint8Array(bytes.subarray(100, 200)));

    const tail = await store.get(`${p}r.bin`, { start: 990 });
    expect(tail!.range).toEqual({ start: 990, end: 999 });
    expect(await bytesOf(tail!.body)).toEqual(new Uint8Array(bytes.subarray(990)));

    const clamped = await store.get(`${p}r.bin`, { start: 995, end: 5000 });
    expect(clamped!.range).toEqual({ start: 995, end: 999 });
    expect((await bytesOf(clamped!.body)).byteLength).toBe(5);

    await expect(store.get(`${p}r.bin`, { start: 1000 })).rejects.toMatchObject({ code: BlobErrorCode.InvalidRange });
  });

  test("a missing key is undefined for get and head", async () => {
    fresh();
    expect(await store.get(`${p}nope.bin`)).toBeUndefined();
    expect(await store.get(`${p}nope.bin`, { start: 0, end: 1 })).toBeUndefined();
    expect(await store.head(`${p}nope.bin`)).toBeUndefined();
  });

  test("delete removes and is idempotent", async () => {
    fresh();
    await store.put(`${p}gone.txt`, "bye", { contentType: "application/x-custom" });
    await store.delete(`${p}gone.txt`);
    expect(await store.head(`${p}gone.txt`)).toBeUndefined();
    await store.delete(`${p}gone.txt`);
    await store.delete(`${p}never-was.txt`);
    expect(await h.rawNames(p)).toEqual([]);
    // A key that is only a prefix of other keys is not a blob: deleting it is a no-op.
    await store.put(`${p}dir/kept.txt`, "x");
    await store.delete(`${p}dir`);
    expect(await store.head(`${p}dir/kept.txt`)).toBeDefined();
  });

  test("list yields every key under a string prefix with its size", async () => {
    fresh();
    const keys = [`${p}a.txt`, `${p}b/1.ts`, `${p}b/2.ts`, `${p}b-c.txt`, `${p}bc/x.txt`];
    for (const [i, key] of keys.entries()) await store.put(key, "x".repeat(i + 1));
    const all = await collect(store, p);
    expect(all.map((i) => i.key).sort()).toEqual([...keys].sort());
    expect(all.find((i) => i.key === `${p}b/2.ts`)).toMatchObject({ size: 3 });
    expect(all.every((i) => i.lastModified instanceof Date && typeof i.etag === "string")).toBe(true);
    expect((await collect(store, `${p}b/`)).map((i) => i.key).sort()).toEqual([`${p}b/1.ts`, `${p}b/2.ts`]);
    expect((await collect(store, `${p}b`)).map((i) => i.key).sort()).toEqual([`${p}b/1.ts`, `${p}b/2.ts`, `${p}b-c.txt`, `${p}bc/x.txt`].sort());
    expect(await collect(store, `${p}zzz`)).toEqual([]);
    expect(await collect(store, `t-${randomUUID()}/`)).toEqual([]);
  });

  // s3rver does not sort its listings; real S3 and the fs store both list in byte order.
  test.if(kind === "fs")("list yields keys in byte order", async () => {
    fresh();
    const keys = [`${p}a/b`, `${p}a-c`, `${p}a.d`, `${p}a0`, `${p}B`];
    for (const key of keys) await store.put(key, "x");
    const byteOrder = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect((await collect(store, p)).map((i) => i.key)).toEqual(byteOrder);
  });

  test("deletePrefix removes exactly the keys under the prefix", async () => {
    fresh();
    for (const key of ["v/1/a.ts", "v/1/b.ts", "v/1/sub/c.m3u8", "v/10/keep.ts", "w/keep.ts"]) {
      await store.put(`${p}${key}`, "x", { contentType: "application/x-custom" });
    }
    await expect(await store.deletePrefix(`${p}v/1/`)).toBe(3);
    expect((await collect(store, p)).map((i) => i.key).sort()).toEqual([`${p}v/10/keep.ts`, `${p}w/keep.ts`]);
    expect(await store.deletePrefix(`${p}v/1/`)).toBe(0);
    expect(await store.deletePrefix(p)).toBe(2);
    expect(await h.rawNames(p)).toEqual([]);
    await expect(store.deletePrefix("")).rejects.toMatchObject({ code: BlobErrorCode.InvalidKey });
  });

  test("publicUrl joins the configured base, else undefined", () => {
    expect(store.publicUrl("videos/a/index.m3u8")).toBeUndefined();
    const cdn = h.withPublicBase("https://cdn.example.com/media/");
    expect(cdn.publicUrl("videos/a/index.m3u8")).toBe("https://cdn.example.com/media/videos/a/index.m3u8");
    expect(cdn.publicUrl("videos/a b/ü#.ts")).toBe("https://cdn.example.com/media/videos/a%20b/%C3%BC%23.ts");
  });

  test("freeBytes is a positive number", async () => {
    const free = await store.freeBytes();
    expect(free).toBeGreaterThan(0);
    if (kind === "s3") expect(free).toBe(Number.POSITIVE_INFINITY);
    else expect(Number.isFinite(free)).toBe(true);
  });

  test("chunks of any size (1 byte, 400 bytes, 5 MiB - 1, 8 MiB, 8 MiB + 1) give back the source", async () => {
    fresh();
    const source = randomBytes(CHUNKS.reduce((a, b) => a + b, 0));
    const info = await uploadInChunks(store, `${p}upload.mp4`, source, CHUNKS);
    expect(info).toMatchObject({ key: `${p}upload.mp4`, size: source.byteLength, contentType: "video/mp4" });
    const got = await store.get(`${p}upload.mp4`);
    expect(sha256(await bytesOf(got!.body))).toBe(sha256(source));
    // Nothing is left beside the blob: no partial file, no staged bytes.
    expect(await h.rawNames(p)).toHaveLength(1);
  }, 60_000);

  test("an upload whose bytes never fill a part is one short part", async () => {
    fresh();
    const source = randomBytes(1000);
    await uploadInChunks(store, `${p}small.bin`, source, [1, 1, 400, 598]);
    expect(sha256(await bytesOf((await store.get(`${p}small.bin`))!.body))).toBe(sha256(source));
  });

  test("a body that breaks off rejects and leaves the state as it was; the next append continues from it", async () => {
    fresh();
    const key = `${p}resumed.mp4`;
    const source = randomBytes(2 * PART_SIZE + 10);
    const handle = await store.beginChunked(key);
    const first = await appendAll(store, key, handle, source, [300]);
    // Other bytes than the source's, more than a part, then the connection drops:
    // whatever was sent of them must never reach the object.
    await expect(store.appendChunked(key, handle, first, droppedStream(randomBytes(PART_SIZE + 5)))).rejects.toThrow("connection reset");
    expect(await store.head(key)).toBeUndefined();
    const rest = await appendAll(store, key, handle, source, [source.byteLength - 300], first);
    await store.completeChunked(key, handle, rest);
    expect(sha256(await bytesOf((await store.get(key))!.body))).toBe(sha256(source));
  }, 60_000);

  test("a state the store does not hold is refused", async () => {
    fresh();
    const key = `${p}stale.bin`;
    const handle = await store.beginChunked(key);
    const state = await appendAll(store, key, handle, randomBytes(100), [100]);
    await expect(store.completeChunked(key, handle, { ...state, offset: 101 })).rejects.toMatchObject({ code: BlobErrorCode.BadParts });
    await expect(store.appendChunked(key, handle, { offset: -1, parts: [] }, streamOf(new Uint8Array(1)))).rejects.toMatchObject({
      code: BlobErrorCode.BadParts,
    });
    await store.abortChunked(key, handle);
  });

  test("abort removes everything and is idempotent", async () => {
    fresh();
    const key = `${p}aborted.mp4`;
    const handle = await store.beginChunked(key, { contentType: "video/mp4" });
    await appendAll(store, key, handle, randomBytes(1234), [1234]);
    // An upload in progress is not a blob.
    await expect(await collect(store, p)).toEqual([]);
    await store.abortChunked(key, handle);
    expect(await store.head(key)).toBeUndefined();
    expect(await h.rawNames(p)).toEqual([]);
    await store.abortChunked(key, handle);
    await expect(store.completeChunked(key, handle, NO_BYTES_YET)).rejects.toMatchObject({ code: BlobErrorCode.NoSuchUpload });
  }, 30_000);

  test("completing an upload replaces an existing object", async () => {
    fresh();
    const key = `${p}replace/video.mp4`;
    await store.put(key, "old contents", { contentType: "text/plain", cacheControl: "no-store" });
    const source = randomBytes(MIN_PART_SIZE + 10);
    const info = await uploadInChunks(store, key, source, [10, MIN_PART_SIZE], "video/x-custom");
    expect(info.size).toBe(source.byteLength);
    const got = await store.get(key);
    expect(got).toMatchObject({ contentType: "video/x-custom", cacheControl: undefined });
    expect(sha256(await bytesOf(got!.body))).toBe(sha256(source));
  }, 30_000);

  test("keys that could escape the root or collide with store files are refused", async () => {
    fresh();
    const bad = [
      "../escape.txt",
      `${p}../../escape.txt`,
      "/etc/passwd",
      `${p}a//b`,
      `${p}.hidden`,
      `${p}x.partial`,
      `${p}x.meta.json`,
      `${p}x.incomplete`,
      "a\\b",
      "",
    ];
    for (const key of bad) {
      await expect(store.put(key, "x")).rejects.toMatchObject({ code: BlobErrorCode.InvalidKey });
    }
    expect(() => store.publicUrl("../escape.txt")).toThrow();
    await expect(store.get("../escape.txt")).rejects.toMatchObject({ code: BlobErrorCode.InvalidKey });
    await expect(store.beginChunked("/abs.mp4")).rejects.toMatchObject({ code: BlobErrorCode.InvalidKey });
    await expect(collect(store, "../")).rejects.toMatchObject({ code: BlobErrorCode.InvalidKey });
  });

  test.if(kind === "fs")("fs: a newer upload of the same key takes over; the old handle stops working", async () => {
    fresh();
    const key = `${p}seq.bin`;
    const handle = await store.beginChunked(key);
    await appendAll(store, key, handle, new Uint8Array(10), [10]);
    const newer = await store.beginChunked(key);
    await expect(store.appendChunked(key, handle, NO_BYTES_YET, streamOf(new Uint8Array(10)))).rejects.toMatchObject({
      code: BlobErrorCode.NoSuchUpload,
    });
    await store.abortChunked(key, handle);
    await appendAll(store, key, newer, new Uint8Array(10), [10]);
    await store.abortChunked(key, newer);
    expect(await h.rawNames(p)).toEqual([]);
  });
});
