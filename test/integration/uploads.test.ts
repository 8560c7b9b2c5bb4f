/**
 * docs/api.md "Uploads" and the "Upload session" state table, over the real app with
 * the fs media store (and the S3 store against s3rver at the end). The encoder
 * is not running here: encoding.test.ts takes files from `processing` onwards.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { connect } from "node:net";
import { getPrivate, privateBlob, sourceKey } from "../../server/storage/media-keys.ts";
import type { Deps } from "../../server/deps.ts";
import { sweepExpiredUploads } from "../../server/api/uploads/service.ts";
import { BlobErrorCode, createS3BlobStore, NO_BYTES_YET, type BlobStore } from "../../server/storage/blob/index.ts";
import { BASE, testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { clip, sha256, sha256File } from "../helpers/media.ts";
import { startS3rver, type S3rverHandle } from "../helpers/s3rver.ts";

// Real engines and a real ffmpeg on a shared 2-core machine: seconds, not milliseconds.
setDefaultTimeout(90_000);

const CHUNK = 8_388_608;
type Bytes = Uint8Array<ArrayBuffer>;
const OCTET = "application/offset+octet-stream";

/** A clock the tests move forward (the session lifetime is 24 hours). */
let shift = 0;
const clock = { now: () => Date.now() + shift };

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let big: Bytes;
let bigPath: string;
let landscape: Bytes;
let text: Bytes;

beforeAll(async () => {
  // Generous limits: these tests send many chunks with one token (the limit itself is tested below).
  t = await testApp({ clock, config: { limits: { readsPerMinute: 100_000, writesPerMinute: 100_000 } } });
  [ws, other] = await Promise.all([t.workspace(), t.workspace()]);
  bigPath = await clip("big");
  big = new Uint8Array(await Bun.file(bigPath).arrayBuffer());
  landscape = new Uint8Array(await Bun.file(await clip("landscape")).arrayBuffer());
  text = new Uint8Array(await Bun.file(await clip("text")).arrayBuffer());
}, 60_000);

interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

/** A request with a raw (non-JSON) body through the app. */
async function send(
  method: string,
  path: string,
  opts: { token?: string; body?: BodyInit | null; headers?: Record<string, string> } = {},
  app: TestApp = t,
): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  const init: RequestInit & { duplex?: string } = { method, headers, body: opts.body ?? undefined };
  if (opts.body instanceof ReadableStream) init.duplex = "half";
  const response = await app.app.handle(new Request(BASE + path, init));
  const raw = await response.text();
  let body: unknown = raw;
  try {
    body = raw ? JSON.parse(raw) : undefined;
  } catch {}
  return { status: response.status, headers: response.headers, body };
}

/** A multipart body with its Content-Length, as a browser or curl sends it. */
async function multipart(form: FormData): Promise<{ body: Bytes; headers: Record<string, string> }> {
  const encoded = new Response(form);
  const body = new Uint8Array(await encoded.arrayBuffer());
  return { body, headers: { "Content-Type": encoded.headers.get("content-type")!, "Content-Length": String(body.length) } };
}

async function newVideo(w: TestWorkspace = ws, app: TestApp = t): Promise<number> {
  const res = await app.call("POST", "/api/v1/videos", { token: w.token, body: { title: "Upload me" } });
  expect(res.status).toBe(201);
  return res.body.video.id;
}

async function init(videoId: number, body: Record<string, unknown>, w: TestWorkspace = ws, app: TestApp = t) {
  return app.call("POST", `/api/v1/videos/${videoId}/upload/init`, { token: w.token, body: { filename: "clip.mp4", mime_type: "video/mp4", ...body } });
}

function patch(id: string, offset: number | undefined, bytes: BodyInit | null, w: TestWorkspace = ws, app: TestApp = t, headers: Record<string, string> = {}) {
  // Real clients always send Content-Length with a byte body; a stream body goes without.
  const h: Record<string, string> = { "Content-Type": OCTET, ...headers };
  if (bytes instanceof Uint8Array) h["Content-Length"] ??= String(bytes.byteLength);
  if (offset !== undefined) h["Upload-Offset"] = String(offset);
  return send("PATCH", `/api/v1/uploads/${id}`, { token: w.token, body: bytes, headers: h }, app);
}

/** Sends `bytes` from `from` in chunk_size pieces; returns the last reply. */
async function sendAll(id: string, bytes: Bytes, from = 0, app: TestApp = t, w: TestWorkspace = ws): Promise<Reply> {
  let reply: Reply | undefined;
  for (let offset = from; offset < bytes.length; offset += CHUNK) {
    reply = await patch(id, offset, bytes.subarray(offset, offset + CHUNK), w, app);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ offset: Math.min(offset + CHUNK, bytes.length), size: bytes.length });
  }
  return reply!;
}

async function storedSha(blobs: Deps["blobs"], uploadId: string): Promise<string> {
  const object = await getPrivate(blobs, sourceKey(uploadId));
  expect(object).toBeDefined();
  return sha256(new Uint8Array(await new Response(object!.body).arrayBuffer()));
}

async function outboxUploaded(workspaceId: number, videoId: number) {
  const rows = await t.deps.sql`SELECT data FROM outbox WHERE workspace_id = ${workspaceId} AND event = 'video.uploaded'`;
  return rows.map((r) => r.data).filter((d) => d.video_id === videoId);
}

/** After an abort the store no longer knows the upload. */
async function chunksGone(blobs: Deps["blobs"], stored: string, handle: string): Promise<void> {
  const { store, key } = privateBlob(blobs, stored);
  await expect(store.completeChunked(key, handle, NO_BYTES_YET)).rejects.toMatchObject({ code: BlobErrorCode.NoSuchUpload });
}

describe("init", () => {
  test("201 session: flup_ id, chunk_size 8388608, offset 0, expires 24 h later, upload_url", async () => {
    const video = await newVideo();
    const before = clock.now();
    const res = await init(video, { size: 1234 });
    expect(res.status).toBe(201);
    expect(res.body.upload_id).toMatch(/^flup_[0-9a-f]+$/);
    expect(res.body).toMatchObject({ chunk_size: CHUNK, offset: 0, size: 1234, upload_url: `${BASE}/api/v1/uploads/${res.body.upload_id}` });
    const expires = Date.parse(res.body.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 24 * 3600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(clock.now() + 24 * 3600_000 + 1000);
    const read = await send("GET", `/api/v1/uploads/${res.body.upload_id}`, { token: ws.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ upload_id: res.body.upload_id, video_id: video, offset: 0, size: 1234, chunk_size: CHUNK });
  });

  test("invalid fields give 422 in the validation shape and save nothing", async () => {
    const video = await newVideo();
    const cases: [Record<string, unknown>, string][] = [
      [{ filename: undefined, size: 10 }, "filename"],
      [{ filename: "x".repeat(256), size: 10 }, "filename"],
      [{ size: 0 }, "size"],
      [{ size: 5_368_709_121 }, "size"],
      [{ size: 1.5 }, "size"],
      [{ size: 10, mime_type: "image/png" }, "mime_type"],
      [{ size: 10, orientation: "sideways" }, "orientation"],
    ];
    for (const [body, field] of cases) {
      const res = await init(video, body);
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toBeArray();
    }
    const [{ n }] = await t.deps.sql`SELECT count(*)::int AS n FROM upload_sessions WHERE video_id = ${video}`;
    expect(n).toBe(0);
  });

  test("every accepted mime_type and the largest size are accepted", async () => {
    const video = await newVideo();
    for (const mime of ["video/mp4", "video/quicktime", "video/x-m4v", "video/x-msvideo", "video/webm", "video/ogg", "video/3gpp", "video/x-matroska"]) {
      expect((await init(video, { size: 5_368_709_120, mime_type: mime })).status).toBe(201);
    }
  });

  test("VIDEO_NOT_FOUND for an unknown, non-numeric or foreign video", async () => {
    const foreign = await newVideo(other);
    for (const id of ["999999999", "abc", String(foreign)]) {
      const res = await t.call("POST", `/api/v1/videos/${id}/upload/init`, { token: ws.token, body: { filename: "a.mp4", size: 5, mime_type: "video/mp4" } });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("VIDEO_NOT_FOUND");
    }
  });

  test("Idempotency-Key replays the first session", async () => {
    const video = await newVideo();
    const body = { filename: "a.mp4", size: 99, mime_type: "video/mp4" };
    const headers = { "Idempotency-Key": `init-${crypto.randomUUID()}` };
    const first = await t.call("POST", `/api/v1/videos/${video}/upload/init`, { token: ws.token, body, headers });
    const again = await t.call("POST", `/api/v1/videos/${video}/upload/init`, { token: ws.token, body, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotency-Replayed")).toBe("true");
    expect(again.body.upload_id).toBe(first.body.upload_id);
  });

  test("a videos:read token gets 403 INSUFFICIENT_SCOPE", async () => {
    const video = await newVideo();
    const reader = await ws.mint(["videos:read"]);
    const res = await t.call("POST", `/api/v1/videos/${video}/upload/init`, {
      token: reader.secret,
      body: { filename: "a.mp4", size: 5, mime_type: "video/mp4" },
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: "INSUFFICIENT_SCOPE", required: "videos:write" });
  });
});

describe("resumable upload", () => {
  test("chunks, a stale retry, GET, complete: 202 processing, video.uploaded, the stored file is byte-identical", async () => {
    const video = await newVideo();
    const session = (await init(video, { size: big.length, filename: "noise.mp4" })).body;
    const first = await patch(session.upload_id, 0, big.subarray(0, CHUNK));
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ offset: CHUNK, size: big.length });
    expect(first.headers.get("Upload-Offset")).toBe(String(CHUNK));

    // Offset behind the server (a retry whose answer was lost): 200, real offset, nothing written.
    const stale = await patch(session.upload_id, 0, big.subarray(0, CHUNK));
    expect(stale.status).toBe(200);
    expect(stale.body).toEqual({ offset: CHUNK, size: big.length });

    // Offset ahead of the server: 409 with the real offset.
    const ahead = await patch(session.upload_id, 2 * CHUNK, big.subarray(2 * CHUNK, 3 * CHUNK));
    expect(ahead.status).toBe(409);
    expect(ahead.body.error).toMatchObject({ code: "OFFSET_MISMATCH", offset: CHUNK });

    await sendAll(session.upload_id, big, CHUNK);
    const read = await send("GET", `/api/v1/uploads/${session.upload_id}`, { token: ws.token });
    expect(read.body.offset).toBe(big.length);

    const done = await send("POST", `/api/v1/uploads/${session.upload_id}/complete`, { token: ws.token });
    expect(done.status).toBe(202);
    expect(done.body.video).toMatchObject({
      id: video,
      status: "processing",
      orientations: { landscape: { status: "processing", progress: 0, error: null }, portrait: null },
      embed: null,
    });
    expect(await storedSha(t.deps.blobs, session.upload_id)).toBe(await sha256File(bigPath));
    const video_code = (await t.call("GET", `/api/v1/videos/${video}`, { token: ws.token })).body.video.code;
    expect(await outboxUploaded(ws.id, video)).toEqual([{ video_id: video, video_code, orientation: "landscape", size: big.length }]);
    const [job] = await t.deps.sql`SELECT state, source_key FROM encode_jobs WHERE video_id = ${video}`;
    expect(job).toEqual({ state: "queued", source_key: sourceKey(session.upload_id) });

    // A retried complete (its answer lost) answers the same and queues nothing more.
    const retry = await send("POST", `/api/v1/uploads/${session.upload_id}/complete`, { token: ws.token });
    expect(retry.status).toBe(202);
    expect((await t.deps.sql`SELECT id FROM encode_jobs WHERE video_id = ${video}`).length).toBe(1);
  });

  test("several chunks in one PATCH body are split into 8 MiB parts", async () => {
    const video = await newVideo();
    const session = (await init(video, { size: big.length })).body;
    const res = await patch(session.upload_id, 0, big);
    expect(res.body).toEqual({ offset: big.length, size: big.length });
    expect((await send("POST", `/api/v1/uploads/${session.upload_id}/complete`, { token: ws.token })).status).toBe(202);
    expect(await storedSha(t.deps.blobs, session.upload_id)).toBe(sha256(big));
  });

  test("orientation portrait goes to the portrait slot", async () => {
    const video = await newVideo();
    const session = (await init(video, { size: landscape.length, orientation: "portrait" })).body;
    await sendAll(session.upload_id, landscape);
    const done = await send("POST", `/api/v1/uploads/${session.upload_id}/complete`, { token: ws.token });
    expect(done.body.video.orientations).toEqual({ landscape: null, portrait: { status: "processing", progress: 0, error: null } });
  });

  test("OFFSET_REQUIRED, EMPTY_CHUNK, SIZE_EXCEEDED and a wrong content type write nothing; a chunk of any length is taken", async () => {
    const video = await newVideo();
    const session = (await init(video, { size: CHUNK + 10 })).body;
    const id = session.upload_id;

    const noOffset = await patch(id, undefined, new Uint8Array(10));
    expect(noOffset.status).toBe(400);
    expect(noOffset.body.error.code).toBe("OFFSET_REQUIRED");

    const empty = await patch(id, 0, new Uint8Array(0));
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe("EMPTY_CHUNK");

    const tooBig = await patch(id, 0, new Uint8Array(CHUNK + 11));
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.code).toBe("SIZE_EXCEEDED");

    const json = await send("PATCH", `/api/v1/uploads/${id}`, {
      token: ws.token,
      body: "{}",
      headers: { "Content-Type": "application/json", "Upload-Offset": "0" },
    });
    expect(json.status).toBe(400);

    // None of these wrote anything.
    expect((await send("GET", `/api/v1/uploads/${id}`, { token: ws.token })).body.offset).toBe(0);

    // chunk_size is what the server recommends, not a rule: 1000 bytes advance the offset by 1000.
    const odd = await patch(id, 0, new Uint8Array(1000));
    expect(odd.status).toBe(200);
    expect(odd.body).toEqual({ offset: 1000, size: CHUNK + 10 });

    await patch(id, 1000, new Uint8Array(CHUNK - 1000));
    const past = await patch(id, CHUNK, new Uint8Array(11));
    expect(past.status).toBe(400);
    expect(past.body.error.code).toBe("SIZE_EXCEEDED");
    const last = await patch(id, CHUNK, new Uint8Array(10));
    expect(last.body).toEqual({ offset: CHUNK + 10, size: CHUNK + 10 });
  });

  test("SIZE_EXCEEDED for a body of unknown length that runs past the declared size", async () => {
    const video = await newVideo();
    const session = (await init(video, { size: 100 })).body;
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array(60));
        c.enqueue(new Uint8Array(60));
        c.close();
      },
    });
    const res = await patch(session.upload_id, 0, stream);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("SIZE_EXCEEDED");
  });

  test("a body of unknown length advances the offset by the bytes that arrived", async () => {
    const video = await newVideo();
    const session = (await init(video, { size: CHUNK + 10 })).body;
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array(1000));
        c.close();
      },
    });
    const res = await patch(session.upload_id, 0, stream);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ offset: 1000, size: CHUNK + 10 });
    expect((await send("GET", `/api/v1/uploads/${session.upload_id}`, { token: ws.token })).body.offset).toBe(1000);
  });

  test("complete before every byte arrived: 409 INCOMPLETE with the offset; the session stays open", async () => {
    const video = await newVideo();
    const session = (await init(video, { size: big.length })).body;
    await patch(session.upload_id, 0, big.subarray(0, CHUNK));
    const early = await send("POST", `/api/v1/uploads/${session.upload_id}/complete`, { token: ws.token });
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: "INCOMPLETE", offset: CHUNK });
    const read = await send("GET", `/api/v1/uploads/${session.upload_id}`, { token: ws.token });
    expect(read.status).toBe(200);
    await sendAll(session.upload_id, big, CHUNK);
    expect((await send("POST", `/api/v1/uploads/${session.upload_id}/complete`, { token: ws.token })).status).toBe(202);
  });

  test("bytes that are not a video: 422 UNSUPPORTED_MEDIA_TYPE, session closed, video untouched (declared mime_type not trusted)", async () => {
    const video = await newVideo();
    const session = (await init(video, { size: text.length, filename: "movie.mp4", mime_type: "video/mp4" })).body;
    await sendAll(session.upload_id, text);
    const done = await send("POST", `/api/v1/uploads/${session.upload_id}/complete`, { token: ws.token });
    expect(done.status).toBe(422);
    expect(done.body.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect((await send("GET", `/api/v1/uploads/${session.upload_id}`, { token: ws.token })).body.error.code).toBe("UPLOAD_NOT_FOUND");
    expect((await patch(session.upload_id, 0, text)).status).toBe(404);
    expect(await t.deps.blobs.private.head(sourceKey(session.upload_id).slice("private/".length))).toBeUndefined();
    const status = await t.call("GET", `/api/v1/videos/${video}/status`, { token: ws.token });
    expect(status.body.status).toBe("waiting_for_upload");
    expect(await outboxUploaded(ws.id, video)).toEqual([]);
  });

  test("DELETE: {deleted: true}, chunks deleted, then UPLOAD_NOT_FOUND", async () => {
    const video = await newVideo();
    const session = (await init(video, { size: big.length })).body;
    await patch(session.upload_id, 0, big.subarray(0, CHUNK));
    const [row] = await t.deps.sql`SELECT blob_key, blob_handle FROM upload_sessions WHERE id = ${session.upload_id}`;
    const res = await send("DELETE", `/api/v1/uploads/${session.upload_id}`, { token: ws.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true });
    await chunksGone(t.deps.blobs, row!.blob_key, row!.blob_handle);
    for (const [method, path] of [
      ["GET", ""],
      ["DELETE", ""],
      ["POST", "/complete"],
    ] as const) {
      const again = await send(method, `/api/v1/uploads/${session.upload_id}${path}`, { token: ws.token });
      expect(again.status).toBe(404);
      expect(again.body.error.code).toBe("UPLOAD_NOT_FOUND");
    }
    // Also the next chunk, right after (the chunk before kept its lease for a moment).
    const next = await patch(session.upload_id, CHUNK, big.subarray(CHUNK, 2 * CHUNK));
    expect(next.status).toBe(404);
    expect(next.body.error.code).toBe("UPLOAD_NOT_FOUND");
  });

  test("24 hours after init the session is expired: UPLOAD_NOT_FOUND, the sweeper discards its chunks, DELETE still answers {deleted: true}", async () => {
    const video = await newVideo();
    const a = (await init(video, { size: big.length })).body;
    const b = (await init(video, { size: big.length })).body;
    await patch(a.upload_id, 0, big.subarray(0, CHUNK));
    const [row] = await t.deps.sql`SELECT blob_key, blob_handle FROM upload_sessions WHERE id = ${a.upload_id}`;
    shift += 24 * 3600_000 + 1000;
    try {
      for (const res of [
        await send("GET", `/api/v1/uploads/${a.upload_id}`, { token: ws.token }),
        await patch(a.upload_id, CHUNK, big.subarray(CHUNK, 2 * CHUNK)),
        await send("POST", `/api/v1/uploads/${a.upload_id}/complete`, { token: ws.token }),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe("UPLOAD_NOT_FOUND");
      }
      // Expired but not yet swept.
      expect((await send("DELETE", `/api/v1/uploads/${b.upload_id}`, { token: ws.token })).body).toEqual({ deleted: true });
      expect(await sweepExpiredUploads(t.deps)).toBeGreaterThanOrEqual(1);
      const [swept] = await t.deps.sql`SELECT state FROM upload_sessions WHERE id = ${a.upload_id}`;
      expect(swept!.state).toBe("expired");
      await chunksGone(t.deps.blobs, row!.blob_key, row!.blob_handle);
      // Expired and swept.
      const del = await send("DELETE", `/api/v1/uploads/${a.upload_id}`, { token: ws.token });
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ deleted: true });
    } finally {
      shift = 0;
    }
  });

  test("two PATCHes racing on one offset: one writes, the other gets 200 with the real offset", async () => {
    const video = await newVideo();
    const session = (await init(video, { size: big.length })).body;
    const piece = big.subarray(0, CHUNK);
    /** A body that trickles in, so both requests are in flight at once. */
    const slow = () => {
      let sent = 0;
      return new ReadableStream<Uint8Array>({
        async pull(c) {
          if (sent >= piece.length) return c.close();
          await Bun.sleep(5);
          const next = piece.subarray(sent, sent + 1024 * 1024);
          sent += next.length;
          c.enqueue(next);
        },
      });
    };
    const headers = { "Content-Length": String(CHUNK) };
    const [r1, r2] = await Promise.all([patch(session.upload_id, 0, slow(), ws, t, headers), patch(session.upload_id, 0, slow(), ws, t, headers)]);
    expect([r1.status, r2.status]).toEqual([200, 200]);
    expect(r1.body).toEqual({ offset: CHUNK, size: big.length });
    expect(r2.body).toEqual({ offset: CHUNK, size: big.length });
    const [row] = await t.deps.sql`SELECT "offset" FROM upload_sessions WHERE id = ${session.upload_id}`;
    expect(row).toEqual({ offset: CHUNK });
    await sendAll(session.upload_id, big, CHUNK);
    expect((await send("POST", `/api/v1/uploads/${session.upload_id}/complete`, { token: ws.token })).status).toBe(202);
    expect(await storedSha(t.deps.blobs, session.upload_id)).toBe(sha256(big));
  });

  test("each chunk counts against the writes per minute: 429 with Retry-After", async () => {
    const limited = await testApp({ config: { limits: { readsPerMinute: 600, writesPerMinute: 4 } } });
    const w = await limited.workspace();
    const video = await newVideo(w, limited); // write 1
    const session = (await init(video, { size: 10 }, w, limited)).body; // write 2
    expect((await patch(session.upload_id, 5, new Uint8Array(5), w, limited)).status).toBe(409); // write 3
    expect((await patch(session.upload_id, 5, new Uint8Array(5), w, limited)).status).toBe(409); // write 4
    const limitedReply = await patch(session.upload_id, 0, new Uint8Array(10), w, limited);
    expect(limitedReply.status).toBe(429);
    expect(Number(limitedReply.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(limitedReply.body.error.code).toBe("RATE_LIMITED");
  });
});

describe("a dropped connection mid-chunk, over a real port", () => {
  let server: ReturnType<typeof Bun.serve> | undefined;
  afterAll(() => void server?.stop());

  /** Sends headers for a full chunk, then only part of it, then drops the socket. */
  function dropMidChunk(port: number, id: string, offset: number, bytes: Bytes, sendOnly: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.write(
          `PATCH /api/v1/uploads/${id} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${ws.token}\r\n` +
            `Content-Type: ${OCTET}\r\nUpload-Offset: ${offset}\r\nContent-Length: ${bytes.length}\r\n\r\n`,
        );
        socket.write(bytes.subarray(0, sendOnly), () => setTimeout(() => (socket.destroy(), resolve()), 100));
      });
      socket.on("error", reject);
    });
  }

  test("every byte of the half-sent chunk that arrived is kept; GET gives the offset to resume from; the final file's SHA-256 equals the source's", async () => {
    const listening = t.app.listen({ port: 0, hostname: "127.0.0.1" });
    server = listening.server!;
    const port = server.port!;
    const url = (p: string) => `http://127.0.0.1:${port}/api/v1${p}`;
    const auth = { Authorization: `Bearer ${ws.token}` };

    const video = await newVideo();
    const session = (await init(video, { size: big.length })).body;
    const first = await fetch(url(`/uploads/${session.upload_id}`), {
      method: "PATCH",
      headers: { ...auth, "Content-Type": OCTET, "Upload-Offset": "0" },
      body: big.subarray(0, CHUNK),
    });
    expect(await first.json()).toEqual({ offset: CHUNK, size: big.length });

    await dropMidChunk(port, session.upload_id, CHUNK, big.subarray(CHUNK, 2 * CHUNK), 3 * 1024 * 1024);

    // The broken request records what arrived once the server notices; poll briefly.
    // The 3 MiB that arrived before the drop count; the client resumes mid-chunk, at any size.
    let offset = -1;
    for (let i = 0; i < 50 && offset !== CHUNK + 3 * 1024 * 1024; i++) {
      if (i > 0) await Bun.sleep(100);
      const read = await fetch(url(`/uploads/${session.upload_id}`), { headers: auth });
      offset = ((await read.json()) as { offset: number }).offset;
    }
    expect(offset).toBe(CHUNK + 3 * 1024 * 1024);

    for (let at = offset; at < big.length; at += CHUNK) {
      const res = await fetch(url(`/uploads/${session.upload_id}`), {
        method: "PATCH",
        headers: { ...auth, "Content-Type": OCTET, "Upload-Offset": String(at) },
        body: big.subarray(at, at + CHUNK),
      });
      expect(res.status).toBe(200);
    }
    const done = await fetch(url(`/uploads/${session.upload_id}/complete`), { method: "POST", headers: auth });
    expect(done.status).toBe(202);
    expect(await storedSha(t.deps.blobs, session.upload_id)).toBe(await sha256File(bigPath));
  });
});

describe("single-shot upload", () => {
  const form = (parts: Record<string, string | Blob>, fileName = "clip.mp4") => {
    const f = new FormData();
    for (const [k, v] of Object.entries(parts)) {
      if (typeof v === "string") f.append(k, v);
      else f.append(k, v, fileName);
    }
    return f;
  };

  test("202 with the status object; the file is stored and queued; video.uploaded fires", async () => {
    const video = await newVideo();
    const res = await send("POST", `/api/v1/videos/${video}/upload`, { token: ws.token, body: form({ orientation: "portrait", file: new Blob([landscape]) }) });
    expect(res.status).toBe(202);
    expect(res.body.video).toMatchObject({
      id: video,
      status: "processing",
      orientations: { landscape: null, portrait: { status: "processing", progress: 0, error: null } },
    });
    const [job] = await t.deps.sql`SELECT source_key, size, orientation FROM encode_jobs WHERE video_id = ${video}`;
    expect(job).toMatchObject({ size: landscape.length, orientation: "portrait" });
    const stored = await getPrivate(t.deps.blobs, job!.source_key);
    expect(sha256(new Uint8Array(await new Response(stored!.body).arrayBuffer()))).toBe(sha256(landscape));
    expect(await outboxUploaded(ws.id, video)).toHaveLength(1);
  });

  test("orientation defaults to landscape, also when the field comes after the file", async () => {
    const video = await newVideo();
    const res = await send("POST", `/api/v1/videos/${video}/upload`, { token: ws.token, body: form({ file: new Blob([landscape]) }) });
    expect(res.body.video.orientations.landscape).toEqual({ status: "processing", progress: 0, error: null });
    const video2 = await newVideo();
    const after = await send("POST", `/api/v1/videos/${video2}/upload`, {
      token: ws.token,
      body: form({ file: new Blob([landscape]), orientation: "portrait" }),
    });
    expect(after.body.video.orientations.portrait).not.toBeNull();
  });

  test("not a video: 422 UNSUPPORTED_MEDIA_TYPE and nothing kept; no file or a bad orientation: 422 validation", async () => {
    const uploadKeys = async () => {
      const keys: string[] = [];
      for await (const info of t.deps.blobs.private.list("sources/")) keys.push(info.key);
      return keys.sort();
    };
    const before = await uploadKeys();
    const video = await newVideo();
    const notVideo = await send("POST", `/api/v1/videos/${video}/upload`, { token: ws.token, body: form({ file: new Blob([text]) }) });
    expect(notVideo.status).toBe(422);
    expect(notVideo.body.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const noFile = await send("POST", `/api/v1/videos/${video}/upload`, { token: ws.token, body: form({ orientation: "landscape" }) });
    expect(noFile.status).toBe(422);
    expect(noFile.body.errors.file).toBeArray();
    const badSide = await send("POST", `/api/v1/videos/${video}/upload`, {
      token: ws.token,
      body: form({ file: new Blob([landscape]), orientation: "diagonal" }),
    });
    expect(badSide.status).toBe(422);
    expect(badSide.body.errors.orientation).toBeArray();
    expect((await t.call("GET", `/api/v1/videos/${video}/status`, { token: ws.token })).body.status).toBe("waiting_for_upload");
    expect((await t.deps.sql`SELECT id FROM encode_jobs WHERE video_id = ${video}`).length).toBe(0);
    expect(await uploadKeys()).toEqual(before);
  });

  test("VIDEO_NOT_FOUND for an unknown or foreign video, before the body is read", async () => {
    const foreign = await newVideo(other);
    for (const id of ["424242424", String(foreign)]) {
      const res = await send("POST", `/api/v1/videos/${id}/upload`, { token: ws.token, body: form({ file: new Blob([landscape]) }) });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("VIDEO_NOT_FOUND");
    }
  });

  test("413 from Content-Length before the body is read, and for a stream that runs past the limit", async () => {
    const small = await testApp({ config: { media: { ...t.deps.config.media, singleUploadMaxBytes: 50_000 } } });
    const w = await small.workspace();
    const video = await newVideo(w, small);
    const declared = await send(
      "POST",
      `/api/v1/videos/${video}/upload`,
      { token: w.token, ...(await multipart(form({ file: new Blob([landscape]) }))) },
      small,
    );
    expect(declared.status).toBe(413);

    // No Content-Length: the multipart stream is cut off once the file passes the limit.
    const encoded = new Response(form({ file: new Blob([big.subarray(0, 2_000_000)]) }));
    const type = encoded.headers.get("content-type")!;
    const bytes = new Uint8Array(await encoded.arrayBuffer());
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent >= bytes.length) return c.close();
        c.enqueue(bytes.subarray(sent, sent + 16 * 1024));
        sent += 16 * 1024;
      },
    });
    const cut = await send("POST", `/api/v1/videos/${video}/upload`, { token: w.token, body: stream, headers: { "Content-Type": type } }, small);
    expect(cut.status).toBe(413);
    expect(sent).toBeLessThan(bytes.length);
    expect((await small.call("GET", `/api/v1/videos/${video}/status`, { token: w.token })).body.status).toBe("waiting_for_upload");
  });
});

describe("storage pressure", () => {
  test("507 INSUFFICIENT_STORAGE when the file cannot fit now; nothing is saved", async () => {
    const app = await testApp();
    const w = await app.workspace();
    const real = app.deps.blobs.private;
    // Simulates a nearly full disk: the real fs store, reporting 1 MB free.
    app.deps.blobs.private = { ...real, kind: real.kind, freeBytes: async () => 1_000_000 } as BlobStore;
    const video = await newVideo(w, app);
    const res = await init(video, { size: 2_000_000 }, w, app);
    expect(res.status).toBe(507);
    expect(res.body.error.code).toBe("INSUFFICIENT_STORAGE");
    const f = new FormData();
    f.append("file", new Blob([new Uint8Array(1_500_000)]), "big.mp4");
    const oneShot = await send("POST", `/api/v1/videos/${video}/upload`, { token: w.token, ...(await multipart(f)) }, app);
    expect(oneShot.status).toBe(507);
    expect((await app.deps.sql`SELECT id FROM upload_sessions WHERE workspace_id = ${w.id}`).length).toBe(0);
    expect((await app.deps.sql`SELECT id FROM encode_jobs WHERE workspace_id = ${w.id}`).length).toBe(0);
    // A file that fits is still taken.
    expect((await init(video, { size: 500_000 }, w, app)).status).toBe(201);
  });
});

describe("workspaces are isolated", () => {
  test("another workspace's token gets 404 on every upload route and sees nothing", async () => {
    const video = await newVideo();
    const session = (await init(video, { size: landscape.length })).body;
    const id = session.upload_id;
    const checks: [string, string, BodyInit | null, Record<string, string>, string][] = [
      ["GET", `/api/v1/uploads/${id}`, null, {}, "UPLOAD_NOT_FOUND"],
      ["PATCH", `/api/v1/uploads/${id}`, landscape, { "Content-Type": OCTET, "Upload-Offset": "0" }, "UPLOAD_NOT_FOUND"],
      ["POST", `/api/v1/uploads/${id}/complete`, null, {}, "UPLOAD_NOT_FOUND"],
      ["DELETE", `/api/v1/uploads/${id}`, null, {}, "UPLOAD_NOT_FOUND"],
      [
        "POST",
        `/api/v1/videos/${video}/upload/init`,
        JSON.stringify({ filename: "a.mp4", size: 5, mime_type: "video/mp4" }),
        { "Content-Type": "application/json" },
        "VIDEO_NOT_FOUND",
      ],
      ["GET", `/api/v1/videos/${video}/status`, null, {}, "VIDEO_NOT_FOUND"],
      ["GET", `/api/v1/videos/${video}/embed`, null, {}, "NOT_FOUND"],
      ["GET", `/api/v1/videos/${video}/config`, null, {}, "NOT_FOUND"],
    ];
    for (const [method, path, body, headers, code] of checks) {
      const res = await send(method, path, { token: other.token, body, headers });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe(code);
    }
    const single = new FormData();
    single.append("file", new Blob([landscape]), "a.mp4");
    const res = await send("POST", `/api/v1/videos/${video}/upload`, { token: other.token, body: single });
    expect(res.status).toBe(404);
    // A's session is untouched by B's attempts.
    const mine = await send("GET", `/api/v1/uploads/${id}`, { token: ws.token });
    expect(mine.body.offset).toBe(0);
  });

  test("unknown and malformed upload ids are UPLOAD_NOT_FOUND", async () => {
    for (const id of ["flup_0123456789abcdef0123456789abcdef", "nope", "flup_XYZ"]) {
      const res = await send("GET", `/api/v1/uploads/${id}`, { token: ws.token });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("UPLOAD_NOT_FOUND");
    }
  });
});

describe("S3 stores (s3rver)", () => {
  let s3: S3rverHandle;
  let app: TestApp;
  let w: TestWorkspace;

  beforeAll(async () => {
    s3 = await startS3rver();
    await s3.createBucket("frameline-uploads");
    app = await testApp();
    w = await app.workspace();
    // The app's media store is the S3 one from here on (no request has used it yet).
    app.deps.blobs.media = createS3BlobStore({ bucket: "frameline-uploads", prefix: "media/", client: s3.client });
    app.deps.blobs.private = createS3BlobStore({ bucket: "frameline-uploads", prefix: "private/", client: s3.client });
  }, 60_000);
  afterAll(async () => {
    await s3?.stop();
  });

  test("chunks become multipart parts; complete assembles a byte-identical object", async () => {
    const video = await newVideo(w, app);
    const session = (await init(video, { size: big.length }, w, app)).body;
    await patch(session.upload_id, 0, big.subarray(0, CHUNK), w, app);
    // A stale retry of part 1 writes nothing.
    expect((await patch(session.upload_id, 0, big.subarray(0, CHUNK), w, app)).body.offset).toBe(CHUNK);
    await sendAll(session.upload_id, big, CHUNK, app, w);
    const done = await send("POST", `/api/v1/uploads/${session.upload_id}/complete`, { token: w.token }, app);
    expect(done.status).toBe(202);
    expect(await storedSha(app.deps.blobs, session.upload_id)).toBe(sha256(big));
  });

  test("DELETE aborts the multipart upload; not-a-video closes the session", async () => {
    const video = await newVideo(w, app);
    const session = (await init(video, { size: big.length }, w, app)).body;
    await patch(session.upload_id, 0, big.subarray(0, CHUNK), w, app);
    const [row] = await app.deps.sql`SELECT blob_key, blob_handle FROM upload_sessions WHERE id = ${session.upload_id}`;
    expect((await send("DELETE", `/api/v1/uploads/${session.upload_id}`, { token: w.token }, app)).body).toEqual({ deleted: true });
    await chunksGone(app.deps.blobs, row!.blob_key, row!.blob_handle);

    const bad = (await init(video, { size: text.length }, w, app)).body;
    await sendAll(bad.upload_id, text, 0, app, w);
    const done = await send("POST", `/api/v1/uploads/${bad.upload_id}/complete`, { token: w.token }, app);
    expect(done.status).toBe(422);
    expect(await app.deps.blobs.private.head(sourceKey(bad.upload_id).slice("private/".length))).toBeUndefined();
  });

  test("the sweeper aborts an expired session's multipart upload", async () => {
    const video = await newVideo(w, app);
    const session = (await init(video, { size: big.length }, w, app)).body;
    await patch(session.upload_id, 0, big.subarray(0, CHUNK), w, app);
    await app.deps.sql`UPDATE upload_sessions SET expires_at = now() - interval '1 second' WHERE id = ${session.upload_id}`;
    const [row] = await app.deps.sql`SELECT blob_key, blob_handle FROM upload_sessions WHERE id = ${session.upload_id}`;
    await sweepExpiredUploads(app.deps);
    await chunksGone(app.deps.blobs, row!.blob_key, row!.blob_handle);
  });

  test("single-shot upload streams to S3", async () => {
    const video = await newVideo(w, app);
    const f = new FormData();
    f.append("file", new Blob([landscape]), "clip.mp4");
    const res = await send("POST", `/api/v1/videos/${video}/upload`, { token: w.token, body: f }, app);
    expect(res.status).toBe(202);
    const [job] = await app.deps.sql`SELECT source_key FROM encode_jobs WHERE video_id = ${video}`;
    const stored = await getPrivate(app.deps.blobs, job!.source_key);
    expect(sha256(new Uint8Array(await new Response(stored!.body).arrayBuffer()))).toBe(sha256(landscape));
  });
});
