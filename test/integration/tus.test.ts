/**
 * tus 1.0 core on the upload URL (a session made by `POST .../upload/init`),
 * with the real tus-js-client under Bun over a real port, behind a proxy that
 * drops the connection halfway through the upload; then complete, and the real
 * encoder takes the clip to `ready`.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFile } from "node:fs/promises";
import * as tus from "tus-js-client";
import { getPrivate, sourceKey } from "../../server/storage/media-keys.ts";
import { startEncoder } from "../../server/workers/encoder.ts";
import { startCutProxy, type CutProxy } from "../helpers/cut-proxy.ts";
import { settledStatus } from "../helpers/status.ts";
import { BASE, testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { clip as mediaClip, sha256 } from "../helpers/media.ts";

setDefaultTimeout(120_000);

const MiB = 1024 * 1024;
let t: TestApp;
let ws: TestWorkspace;
let server: ReturnType<typeof Bun.serve>;
let proxy: CutProxy;
let stopEncoder: (() => Promise<void>) | undefined;
let clip: Buffer;

beforeAll(async () => {
  t = await testApp({ config: { limits: { readsPerMinute: 100_000, writesPerMinute: 100_000 } } });
  ws = await t.workspace();
  server = t.app.listen({ port: 0, hostname: "127.0.0.1" }).server!;
  proxy = await startCutProxy(server.port!);
  clip = await readFile(await mediaClip("mpeg4"));
}, 60_000);

afterAll(async () => {
  await stopEncoder?.();
  await proxy?.stop();
  server?.stop(true);
});

const direct = (path: string) => `http://127.0.0.1:${server.port}/api/v1${path}`;
const auth = () => ({ Authorization: `Bearer ${ws.token}` });

async function newSession(size: number): Promise<{ videoId: number; uploadId: string }> {
  const video = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "tus" } });
  const init = await t.call("POST", `/api/v1/videos/${video.body.video.id}/upload/init`, {
    token: ws.token,
    body: { filename: "noise.mp4", size, mime_type: "video/mp4" },
  });
  expect(init.status).toBe(201);
  // upload_url carries PUBLIC_URL; this test's server listens elsewhere.
  expect(init.body.upload_url).toBe(`${BASE}/api/v1/uploads/${init.body.upload_id}`);
  return { videoId: video.body.video.id, uploadId: init.body.upload_id };
}

describe("tus 1.0 core on the upload URL", () => {
  test("OPTIONS: the protocol version, max size and extensions, and a CORS preflight; no token needed", async () => {
    const { uploadId } = await newSession(10);
    const res = await fetch(direct(`/uploads/${uploadId}`), {
      method: "OPTIONS",
      headers: { Origin: "https://shop.example", "Access-Control-Request-Method": "PATCH", "Access-Control-Request-Headers": "authorization,upload-offset" },
    });
    expect(res.status).toBe(204);
    expect(Object.fromEntries(["tus-resumable", "tus-version", "tus-max-size", "tus-extension"].map((h) => [h, res.headers.get(h)]))).toEqual({
      "tus-resumable": "1.0.0",
      "tus-version": "1.0.0",
      "tus-max-size": "5368709120",
      "tus-extension": "expiration",
    });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("PATCH");
    for (const h of ["Authorization", "Upload-Offset", "Tus-Resumable", "Content-Type"]) expect(res.headers.get("access-control-allow-headers")).toContain(h);
  });

  test("HEAD: Upload-Offset, Upload-Length, Cache-Control: no-store, Tus-Resumable; PATCH answers the offset as a header beside the JSON body", async () => {
    const { uploadId } = await newSession(1000);
    const patch = await fetch(direct(`/uploads/${uploadId}`), {
      method: "PATCH",
      headers: { ...auth(), "Tus-Resumable": "1.0.0", "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0" },
      body: new Uint8Array(300),
    });
    expect(patch.status).toBe(200);
    expect(await patch.json()).toEqual({ offset: 300, size: 1000 });
    expect(patch.headers.get("upload-offset")).toBe("300");
    expect(patch.headers.get("tus-resumable")).toBe("1.0.0");
    expect(patch.headers.get("access-control-expose-headers")).toContain("Upload-Offset");

    const head = await fetch(direct(`/uploads/${uploadId}`), { method: "HEAD", headers: { ...auth(), "Tus-Resumable": "1.0.0" } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect(head.headers.get("upload-offset")).toBe("300");
    expect(head.headers.get("upload-length")).toBe("1000");
    expect(head.headers.get("cache-control")).toBe("no-store");
    expect(head.headers.get("tus-resumable")).toBe("1.0.0");
    const expires = Date.parse(head.headers.get("upload-expires")!);
    expect(expires).toBeGreaterThan(Date.now() + 23 * 3600_000);
  });

  test("refusals carry Tus-Resumable and CORS too; another protocol version gets 412 with Tus-Version", async () => {
    const { uploadId } = await newSession(1000);
    const missing = await fetch(direct("/uploads/flup_0123456789abcdef0123456789abcdef"), { method: "HEAD", headers: auth() });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("tus-resumable")).toBe("1.0.0");
    expect(missing.headers.get("access-control-allow-origin")).toBe("*");
    const anonymous = await fetch(direct(`/uploads/${uploadId}`), { method: "HEAD" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("access-control-allow-origin")).toBe("*");

    const old = await fetch(direct(`/uploads/${uploadId}`), {
      method: "PATCH",
      headers: { ...auth(), "Tus-Resumable": "0.2.2", "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0" },
      body: new Uint8Array(10),
    });
    expect(old.status).toBe(412);
    expect(old.headers.get("tus-version")).toBe("1.0.0");
    expect(((await old.json()) as { error: { code: string } }).error.code).toBe("TUS_VERSION_UNSUPPORTED");
    expect((await t.call("GET", `/api/v1/uploads/${uploadId}`, { token: ws.token })).body.offset).toBe(0);
  });

  test("X-HTTP-Method-Override: a POST stands for PATCH, HEAD or DELETE", async () => {
    const { uploadId } = await newSession(100);
    const post = (method: string, init: RequestInit = {}) =>
      fetch(direct(`/uploads/${uploadId}`), { ...init, method: "POST", headers: { ...auth(), "X-HTTP-Method-Override": method, ...init.headers } });
    const patched = await post("PATCH", { headers: { "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0" }, body: new Uint8Array(40) });
    expect(patched.status).toBe(200);
    expect(patched.headers.get("upload-offset")).toBe("40");
    expect((await post("HEAD")).headers.get("upload-offset")).toBe("40");
    expect(await (await post("DELETE")).json()).toEqual({ deleted: true });
    expect((await post("HEAD")).status).toBe(404);
    expect((await post("PUT")).status).toBe(404);
  });

  test("tus-js-client, 1 MiB chunks: the connection dies halfway, a new client given only the uploadUrl resumes; complete; the video is ready", async () => {
    stopEncoder = startEncoder(t.deps, { pollMs: 100 });
    const { videoId, uploadId } = await newSession(clip.length);
    const uploadUrl = `http://127.0.0.1:${proxy.port}/api/v1/uploads/${uploadId}`;
    const options = { chunkSize: MiB, headers: auth(), retryDelays: null } satisfies tus.UploadOptions;

    // The first client: the proxy kills its connection in the middle of a chunk, halfway through the file.
    proxy.cutAfter(Math.floor(clip.length / 2));
    const failure = await new Promise<Error>((resolve, reject) => {
      new tus.Upload(clip, { ...options, uploadUrl, onError: resolve, onSuccess: () => reject(new Error("the upload should have been cut off")) }).start();
    });
    await proxy.cut;
    proxy.heal();
    expect(failure.message).toContain("failed to upload chunk");

    // A new client knows only the URL: it asks (HEAD) where to go on, and takes it from there.
    const offsets: number[] = [];
    await new Promise<void>((resolve, reject) => {
      new tus.Upload(clip, {
        ...options,
        uploadUrl,
        onAfterResponse: (req, res) => {
          if (req.getMethod() === "HEAD") offsets.push(Number(res.getHeader("Upload-Offset")));
        },
        onSuccess: () => resolve(),
        onError: reject,
      }).start();
    });
    expect(offsets).toHaveLength(1);
    expect(offsets[0]).toBeGreaterThan(0);
    expect(offsets[0]).toBeLessThan(clip.length);

    const done = await fetch(direct(`/uploads/${uploadId}/complete`), { method: "POST", headers: auth() });
    expect(done.status).toBe(202);
    const stored = await getPrivate(t.deps.blobs, sourceKey(uploadId));
    expect(sha256(new Uint8Array(await new Response(stored!.body).arrayBuffer()))).toBe(sha256(clip));

    expect(await settledStatus(t, ws.token, videoId)).toBe("ready");
    const [row] = await t.deps.sql`SELECT landscape_media FROM videos WHERE id = ${videoId}`;
    expect(row!.landscape_media.renditions).toEqual([expect.objectContaining({ h: 300, copied: false })]);
  });
});
