/**
 * docs/api.md's "Upload session" table for chunks of any size, through the real app,
 * over the fs media store and the S3 one (s3rver): one suite, both stores.
 * `chunk_size` is what the server recommends; every non-empty chunk at the
 * server's offset advances it, and the stored file is the source, byte for byte.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { getPrivate, sourceKey } from "../../server/storage/media-keys.ts";
import { createS3BlobStore, MIN_PART_SIZE, PART_SIZE } from "../../server/storage/blob/index.ts";
import { BASE, testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { sha256 } from "../helpers/media.ts";
import { startS3rver, type S3rverHandle } from "../helpers/s3rver.ts";

setDefaultTimeout(120_000);

const MiB = 1024 * 1024;
const OCTET = "application/offset+octet-stream";

/** Random bytes behind an mp4 signature, so complete takes them for a video. */
const SOURCE = (() => {
  const bytes = randomBytes(17 * MiB + 123);
  bytes.set(new TextEncoder().encode("\0\0\0\x20ftypisom\0\0\x02\0isomiso2avc1mp41"), 0);
  return new Uint8Array(bytes);
})();

/** [name, file size, chunk sizes sent in turn] */
const CASES: [string, number, number[]][] = [
  ["1 byte", 200, [1]],
  ["400 bytes", 40_000, [400]],
  ["5 MiB - 1", SOURCE.length, [MIN_PART_SIZE - 1]],
  ["8 MiB", SOURCE.length, [PART_SIZE]],
  ["8 MiB + 1", SOURCE.length, [PART_SIZE + 1]],
  ["mixed", SOURCE.length, [1, 400, MIN_PART_SIZE - 1, PART_SIZE + 1, 1000, PART_SIZE, 3 * MiB]],
];

describe.each(["fs", "s3"] as const)("uploads in chunks of any size: %s media store", (kind) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let s3: S3rverHandle | undefined;
  let server: ReturnType<typeof Bun.serve> | undefined;

  beforeAll(async () => {
    t = await testApp({ config: { limits: { readsPerMinute: 1_000_000, writesPerMinute: 1_000_000 } } });
    ws = await t.workspace();
    if (kind === "s3") {
      s3 = await startS3rver();
      await s3.createBucket("frameline-chunks");
      t.deps.blobs.private = createS3BlobStore({ bucket: "frameline-chunks", prefix: "private/", client: s3.client });
    }
  }, 60_000);
  afterAll(async () => {
    server?.stop(true);
    await s3?.stop();
  });

  async function session(size: number): Promise<string> {
    const video = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: `${kind} chunks` } });
    const init = await t.call("POST", `/api/v1/videos/${video.body.video.id}/upload/init`, {
      token: ws.token,
      body: { filename: "clip.mp4", size, mime_type: "video/mp4" },
    });
    expect(init.status).toBe(201);
    return init.body.upload_id;
  }

  async function patch(id: string, offset: number, body: BodyInit, headers: Record<string, string> = {}) {
    const init: RequestInit & { duplex?: string } = {
      method: "PATCH",
      headers: { Authorization: `Bearer ${ws.token}`, "Content-Type": OCTET, "Upload-Offset": String(offset), ...headers },
      body,
    };
    if (body instanceof ReadableStream) init.duplex = "half";
    const res = await t.app.handle(new Request(`${BASE}/api/v1/uploads/${id}`, init));
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  }

  const offsetOf = async (id: string) => (await t.call("GET", `/api/v1/uploads/${id}`, { token: ws.token })).body.offset as number;

  async function completeAndCompare(id: string, source: Uint8Array): Promise<void> {
    const done = await t.call("POST", `/api/v1/uploads/${id}/complete`, { token: ws.token });
    expect(done.status).toBe(202);
    const stored = await getPrivate(t.deps.blobs, sourceKey(id));
    expect(sha256(new Uint8Array(await new Response(stored!.body).arrayBuffer()))).toBe(sha256(source));
  }

  test.each(CASES)("%s chunks, then complete: the stored file's SHA-256 equals the source's", async (_name, size, sizes) => {
    const source = SOURCE.subarray(0, size);
    const id = await session(size);
    let offset = 0;
    for (let i = 0; offset < size; i++) {
      const chunk = source.subarray(offset, offset + sizes[i % sizes.length]!);
      const res = await patch(id, offset, chunk);
      offset += chunk.length;
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ offset, size });
      expect(res.headers.get("Upload-Offset")).toBe(String(offset));
    }
    expect(await offsetOf(id)).toBe(size);
    await completeAndCompare(id, source);
  });

  test("mid-part, every rule holds: behind writes nothing, ahead is 409, past the size and empty are 400 and write nothing", async () => {
    const size = PART_SIZE + 1000;
    const source = SOURCE.subarray(0, size);
    const id = await session(size);
    expect((await patch(id, 0, source.subarray(0, 400))).body).toEqual({ offset: 400, size });

    // Behind (a retry whose answer was lost), with other bytes: 200 with the real offset, nothing written.
    const behind = await patch(id, 0, randomBytes(400));
    expect(behind.status).toBe(200);
    expect(behind.body).toEqual({ offset: 400, size });

    const ahead = await patch(id, 401, source.subarray(401, 801));
    expect(ahead.status).toBe(409);
    expect(ahead.body.error).toMatchObject({ code: "OFFSET_MISMATCH", offset: 400 });

    const past = await patch(id, 400, randomBytes(size - 400 + 1));
    expect(past.status).toBe(400);
    expect(past.body.error.code).toBe("SIZE_EXCEEDED");

    // The same without Content-Length: found out only as the bytes arrive (after a whole S3 part), and still nothing is kept.
    const stream = new Blob([randomBytes(PART_SIZE), randomBytes(size - 400 + 1 - PART_SIZE)]).stream();
    const pastStream = await patch(id, 400, stream.pipeThrough(new TransformStream()));
    expect(pastStream.status).toBe(400);
    expect(pastStream.body.error.code).toBe("SIZE_EXCEEDED");

    const empty = await patch(id, 400, new Uint8Array(0));
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe("EMPTY_CHUNK");

    expect(await offsetOf(id)).toBe(400);
    const early = await t.call("POST", `/api/v1/uploads/${id}/complete`, { token: ws.token });
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: "INCOMPLETE", offset: 400 });

    expect((await patch(id, 400, source.subarray(400))).body).toEqual({ offset: size, size });
    await completeAndCompare(id, source);
  });

  test("a chunk cut off mid-body keeps every byte that arrived; the client resumes from GET's offset", async () => {
    server ??= t.app.listen({ port: 0, hostname: "127.0.0.1" }).server!;
    const port = server.port!;
    const size = SOURCE.length;
    const source = SOURCE.subarray(0, size);
    const id = await session(size);
    expect((await patch(id, 0, source.subarray(0, 1000))).body.offset).toBe(1000);

    /** Headers for `claimed` bytes, then only `sent` of them, then the socket is dropped. */
    const cutOff = (offset: number, claimed: number, sent: number) =>
      new Promise<void>((resolve, reject) => {
        const socket = connect(port, "127.0.0.1", () => {
          socket.write(
            `PATCH /api/v1/uploads/${id} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${ws.token}\r\n` +
              `Content-Type: ${OCTET}\r\nUpload-Offset: ${offset}\r\nContent-Length: ${claimed}\r\n\r\n`,
          );
          socket.write(source.subarray(offset, offset + sent), () => setTimeout(() => (socket.destroy(), resolve()), 100));
        });
        socket.on("error", reject);
      });
    /** The broken request records what arrived once the server notices: GET's offset moves from `before`. */
    const settled = async (before: number) => {
      for (let i = 0; i < 100; i++) {
        const offset = await offsetOf(id);
        if (offset !== before) return offset;
        await Bun.sleep(50);
      }
      return before;
    };

    // Cut off within a part (S3: staged), then past a whole part (S3: a part and staged bytes).
    await cutOff(1000, 4 * MiB, 3 * MiB + 7);
    const first = await settled(1000);
    expect(first).toBe(1000 + 3 * MiB + 7);
    await cutOff(first, 12 * MiB, 9 * MiB + 1);
    const second = await settled(first);
    expect(second).toBe(first + 9 * MiB + 1);

    expect((await patch(id, second, source.subarray(second))).body).toEqual({ offset: size, size });
    await completeAndCompare(id, source);
  });
});
