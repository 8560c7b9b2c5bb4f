/**
 * tus-js-client in real Chromium, on a page of another origin than the API (so
 * CORS must let it send its token and read the offsets): 1 MiB chunks, the
 * connection dies halfway (a proxy drops it), a new client given only the
 * uploadUrl resumes, the page completes the upload, and the real encoder takes
 * the clip to `ready`.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { dirname } from "node:path";
import * as esbuild from "esbuild";
import type { Browser } from "playwright-core";
import { startEncoder } from "../../server/workers/encoder.ts";
import { testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { launchBrowser, page as html, ROOT, serve, type LocalServer } from "../helpers/browser.ts";
import { startCutProxy, type CutProxy } from "../helpers/cut-proxy.ts";
import { settledStatus } from "../helpers/status.ts";
import { clip, sha256 } from "../helpers/media.ts";
import { getPrivate, sourceKey } from "../../server/storage/media-keys.ts";

setDefaultTimeout(150_000);

let t: TestApp;
let ws: TestWorkspace;
let api: ReturnType<typeof Bun.serve>;
let proxy: CutProxy;
let site: LocalServer;
let browser: Browser;
let stopEncoder: (() => Promise<void>) | undefined;
let clipPath: string;

/** tus-js-client's browser build, as a page would load it (`window.tus`). */
async function tusBundle(): Promise<string> {
  const built = await esbuild.build({
    stdin: { contents: 'export * from "tus-js-client";', resolveDir: ROOT },
    bundle: true,
    format: "iife",
    globalName: "tus",
    platform: "browser",
    write: false,
    logLevel: "silent",
  });
  return built.outputFiles[0]!.text;
}

beforeAll(async () => {
  t = await testApp({ config: { limits: { readsPerMinute: 100_000, writesPerMinute: 100_000 } } });
  ws = await t.workspace();
  api = t.app.listen({ port: 0, hostname: "127.0.0.1" }).server!;
  proxy = await startCutProxy(api.port!);
  clipPath = await clip("mpeg4");
  site = serve({ "/files/": dirname(clipPath) });
  site.route("/", html("<h1>Seller's upload page</h1>"));
  site.route("/tus.js", await tusBundle(), "text/javascript");
  stopEncoder = startEncoder(t.deps, { pollMs: 100 });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stopEncoder?.();
  site?.stop();
  await proxy?.stop();
  api?.stop(true);
});

test("tus-js-client in Chromium on another origin: cut off halfway, resumed by a new client from the uploadUrl alone, completed, ready", async () => {
  const bytes = new Uint8Array(await Bun.file(clipPath).arrayBuffer());
  const video = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "From the browser" } });
  const videoId = video.body.video.id as number;
  const init = await t.call("POST", `/api/v1/videos/${videoId}/upload/init`, {
    token: ws.token,
    body: { filename: "noise.mp4", size: bytes.length, mime_type: "video/mp4" },
  });
  const uploadId = init.body.upload_id as string;
  const apiOrigin = `http://127.0.0.1:${proxy.port}`;

  const context = await browser.newContext();
  const tab = await context.newPage();
  const pageErrors: string[] = [];
  tab.on("pageerror", (e) => pageErrors.push(e.message));
  await tab.goto(`${site.url}/`);
  await tab.addScriptTag({ url: `${site.url}/tus.js` });
  await tab.evaluate(async (name) => {
    const blob = await (await fetch(`/files/${name}`)).blob();
    (window as unknown as { file: File }).file = new File([blob], "noise.mp4", { type: "video/mp4" });
  }, clipPath.split("/").pop()!);

  /** Runs one tus upload in the page; resolves with what it saw. */
  const upload = () =>
    tab.evaluate(
      ({ uploadUrl, token }) =>
        new Promise<{ ok: boolean; error?: string; headOffsets: number[]; progress: number[] }>((resolve) => {
          const w = window as unknown as { tus: typeof import("tus-js-client"); file: File };
          const headOffsets: number[] = [];
          const progress: number[] = [];
          new w.tus.Upload(w.file, {
            uploadUrl,
            chunkSize: 1024 * 1024,
            retryDelays: null,
            headers: { Authorization: `Bearer ${token}` },
            // Read through CORS: only exposed headers are visible to a page of another origin.
            onAfterResponse: (req, res) => {
              if (req.getMethod() === "HEAD") headOffsets.push(Number(res.getHeader("Upload-Offset")));
            },
            onProgress: (sent) => progress.push(sent),
            onSuccess: () => resolve({ ok: true, headOffsets, progress }),
            onError: (error) => resolve({ ok: false, error: String(error), headOffsets, progress }),
          }).start();
        }),
      { uploadUrl: `${apiOrigin}/api/v1/uploads/${uploadId}`, token: ws.token },
    );

  proxy.cutAfter(Math.floor(bytes.length / 2));
  const first = await upload();
  expect(first.ok).toBe(false);
  expect(first.error).toContain("failed to upload chunk");
  await proxy.cut;
  proxy.heal();
  expect(first.headOffsets).toEqual([0]);

  const second = await upload();
  expect(second).toMatchObject({ ok: true });
  expect(second.headOffsets).toHaveLength(1);
  expect(second.headOffsets[0]).toBeGreaterThan(0);
  expect(second.headOffsets[0]).toBeLessThan(bytes.length);
  expect(second.progress.at(-1)).toBe(bytes.length);

  const completed = await tab.evaluate(
    async ({ url, token }) => {
      const res = await fetch(url, { method: "POST", headers: { Authorization: `Bearer ${token}` } });
      return { status: res.status, body: await res.json() };
    },
    { url: `${apiOrigin}/api/v1/uploads/${uploadId}/complete`, token: ws.token },
  );
  expect(completed.status).toBe(202);
  expect(completed.body.video.status).toBe("processing");
  const stored = await getPrivate(t.deps.blobs, sourceKey(uploadId));
  expect(sha256(new Uint8Array(await new Response(stored!.body).arrayBuffer()))).toBe(sha256(bytes));

  expect(await settledStatus(t, ws.token, videoId)).toBe("ready");
  expect(pageErrors).toEqual([]);
  await context.close();
});
