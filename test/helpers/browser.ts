/**
 * Browser-test helpers: launch Debian Chromium through playwright-core, make
 * a short real HLS stream with ffmpeg, build the player exactly as the
 * compiler does (CONTRACT: player/core.ts + player/entry.ts), and serve files
 * plus a recording events host on a local port.
 */
import { chromium, type Browser, type Page } from "playwright-core";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { CollectBatch, PlayerConfig } from "../../player/types.ts";
import type { PlaybackGuard } from "../../contract/player-config.ts";
import type { TrackBody } from "../../server/hosts/events/model.ts";
import { buildEntry as buildVideoEntry, coreFor } from "../../compiler/build.ts";
import { featureFlags, type FeatureFlags } from "../../compiler/flags.ts";
import { testApp, type TestApp, type TestWorkspace } from "./app.ts";

export const ROOT = resolve(import.meta.dir, "../..");
export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}

export function tempDir(prefix = "fl-browser-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A real HLS stream (2 s segments, keyframe every 2 s) of ffmpeg's test pattern and a tone, plus a poster. */
export async function makeHlsStream(dir: string, seconds = 6, size = "640x360"): Promise<{ playlist: string; poster: string }> {
  mkdirSync(dir, { recursive: true });
  const run = async (args: string[]) => {
    const proc = Bun.spawn(["ffmpeg", "-loglevel", "error", "-y", ...args], { cwd: dir, stderr: "pipe" });
    if ((await proc.exited) !== 0) throw new Error("ffmpeg failed: " + (await new Response(proc.stderr).text()));
  };
  await run([
    ...`-f lavfi -i testsrc=size=${size}:rate=25 -f lavfi -i sine=frequency=440 -t ${seconds} -c:v libx264 -preset veryfast -pix_fmt yuv420p -g 50 -keyint_min 50 -sc_threshold 0 -c:a aac -hls_time 2 -hls_playlist_type vod -hls_segment_filename seg%d.ts -f hls index.m3u8`.split(
      " ",
    ),
  ]);
  await run(["-f", "lavfi", "-i", `testsrc=size=${size}:rate=1`, "-frames:v", "1", "poster.jpg"]);
  return { playlist: "index.m3u8", poster: "poster.jpg" };
}

/** Feature flags to build with; a missing one is off. */
export type PlayerFlags = Partial<FeatureFlags>;

export interface PlayerBuild {
  /** File name of the content-hashed core in `outdir`. */
  core: string;
  /** Every file esbuild wrote for the core (core + chunks). */
  files: string[];
}

/** The shared core, built by the compiler itself and written to `outdir`. */
export async function buildCore(outdir: string): Promise<PlayerBuild> {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const build = await coreFor(join(ROOT, "player/core.ts"));
  const files = build.files.map((f) => f.key.slice("p/".length));
  for (const [i, f] of build.files.entries()) writeFileSync(join(outdir, files[i]!), f.bytes);
  return { core: build.coreFile, files };
}

/** The per-video entry, built by the compiler itself; returns its code. */
export async function buildEntry(config: PlayerConfig, coreUrl: string, flags: PlayerFlags = {}, protection: PlaybackGuard | null = null): Promise<string> {
  return new TextDecoder().decode(await buildVideoEntry(join(ROOT, "player/entry.ts"), config, coreUrl, flags, null, protection));
}

/** The flags a deploy of these settings would compile with (compiler/flags.ts, the one rule). */
export function flagsFor(config: PlayerConfig): FeatureFlags {
  return featureFlags(config.settings);
}

/** The embed snippet of server/api/videos/service.ts `embedFor`. */
export function embedHtml(code: string, scriptUrl: string, plain = false): string {
  return `<div class="frameline-player" data-video="${code}"${plain ? ' data-mode="plain"' : ""}></div><script async src="${scriptUrl}"></script>`;
}

export function page(body: string, head = ""): string {
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">${head}<style>body{margin:0;padding:16px;background:#eee;font-family:sans-serif}.wrap{max-width:720px;margin:0 auto}</style></head><body><div class="wrap">${body}</div></body></html>`;
}

/** A video of a test's player config: a landscape stream under `media` (index.m3u8 and poster.jpg unless `over` says). */
export function testVideo(code: string, media: string, over: Partial<PlayerConfig["video"]> = {}): PlayerConfig["video"] {
  const landscape = { hls: `${media}index.m3u8`, poster: `${media}poster.jpg`, w: 640, h: 360 };
  return {
    id: 1,
    code,
    title: "Test video",
    workspace_code: "ws_test",
    default_orientation: "landscape",
    plain_mode: false,
    landscape,
    portrait: null,
    ...over,
  };
}

/** Builds a video's entry, serves it at /cdn/p/<code>.js and a page embedding it at /<name>.html; answers the page's URL. */
export async function publishEntry(server: LocalServer, cfg: PlayerConfig, coreUrl: string, name = cfg.video.code, plain = false): Promise<string> {
  server.route(`/cdn/p/${cfg.video.code}.js`, await buildEntry(cfg, coreUrl, flagsFor(cfg)), "text/javascript");
  server.route(`/${name}.html`, page(embedHtml(cfg.video.code, `${server.url}/cdn/p/${cfg.video.code}.js`, plain)));
  return `${server.url}/${name}.html`;
}

export interface LocalServer {
  url: string;
  collects: CollectBatch[];
  tracks: TrackBody[];
  /** Paths of every GET, in order (to prove what was fetched when). */
  requests: string[];
  /** Status of every answered events-host post, in order. */
  statuses: number[];
  /** Serves `body` at `path` (html pages, built entries). */
  route(path: string, body: string, type?: string): void;
  stop(): void;
}

const TYPES: Record<string, string> = {
  js: "text/javascript",
  mjs: "text/javascript",
  html: "text/html",
  m3u8: "application/vnd.apple.mpegurl",
  ts: "video/mp2t",
  jpg: "image/jpeg",
  vtt: "text/vtt",
  json: "application/json",
};

/**
 * One local origin: files from `dirs` (URL prefix → directory), in-memory
 * routes, and a recording events host (`POST /v1/collect`, `POST /v1/track`)
 * that answers CORS like the real one. Text assets are gzipped when asked, so
 * byte counts match a real CDN.
 */
export interface ServeOptions {
  /**
   * Hands each events-host post to the real app instead of answering it here
   * (e.g. `(req) => app.handle(req)`): the recording stays, the answer is the app's.
   */
  forward?: (request: Request) => Response | Promise<Response>;
}

export function serve(dirs: Record<string, string>, options: ServeOptions = {}): LocalServer {
  const routes = new Map<string, { body: string; type: string }>();
  const collects: CollectBatch[] = [];
  const tracks: TrackBody[] = [];
  const requests: string[] = [];
  const statuses: number[] = [];
  const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "content-type", "access-control-allow-methods": "GET, POST, OPTIONS" };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const { pathname } = new URL(req.url);
      if (req.method === "OPTIONS") return new Response(null, { status: 204, headers: cors });
      if (req.method === "POST" && (pathname === "/v1/collect" || pathname === "/v1/track")) {
        const text = await req.text();
        try {
          (pathname === "/v1/collect" ? collects : tracks).push(JSON.parse(text));
        } catch {
          statuses.push(400);
          return Response.json({ error: "INVALID_PAYLOAD", message: "body is not JSON" }, { status: 400, headers: cors });
        }
        if (!options.forward) {
          statuses.push(200);
          return Response.json({ ok: true }, { headers: cors });
        }
        const answer = await options.forward(
          new Request(req.url, {
            method: "POST",
            headers: { "content-type": req.headers.get("content-type") || "text/plain", "user-agent": req.headers.get("user-agent") || "" },
            body: text,
          }),
        );
        statuses.push(answer.status);
        return new Response(await answer.text(), {
          status: answer.status,
          headers: { ...cors, "content-type": answer.headers.get("content-type") || "application/json" },
        });
      }
      requests.push(pathname);
      const gzip = (req.headers.get("accept-encoding") || "").includes("gzip");
      const send = (bytes: Uint8Array<ArrayBuffer>, type: string) => {
        const text = /javascript|html|mpegurl|json|vtt/.test(type);
        const headers: Record<string, string> = { ...cors, "content-type": type, "cache-control": "no-store" };
        if (text && gzip) {
          headers["content-encoding"] = "gzip";
          return new Response(Bun.gzipSync(bytes), { headers });
        }
        return new Response(bytes, { headers });
      };
      const routed = routes.get(pathname);
      if (routed) return send(new TextEncoder().encode(routed.body), routed.type);
      for (const prefix in dirs) {
        if (!pathname.startsWith(prefix)) continue;
        const rel = decodeURIComponent(pathname.slice(prefix.length));
        if (rel.includes("..")) break;
        const file = Bun.file(join(dirs[prefix], rel));
        if (await file.exists()) return send(new Uint8Array(await file.arrayBuffer()), TYPES[rel.split(".").pop() || ""] || "application/octet-stream");
      }
      return new Response("not found", { status: 404, headers: cors });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    collects,
    tracks,
    requests,
    statuses,
    route: (path, body, type = "text/html") => routes.set(path, { body, type }),
    stop: () => server.stop(true),
  };
}

/**
 * A `<script>` for a customer page's head that records every ad pixel call (`fbq`, `gtag`,
 * `ttq` defined by the page, as the real snippets' queue stubs would: `__pixels`) and the
 * page API's `events` (`__page`: name, data, when, the video's time), queued on
 * `Frameline.q` before any Frameline script ran.
 */
export function pageRecorders(events: string[]): string {
  return `<script>
  window.__pixels = [];
  window.fbq = function () { __pixels.push(["fbq"].concat([].slice.call(arguments))); };
  window.gtag = function () { __pixels.push(["gtag"].concat([].slice.call(arguments))); };
  window.ttq = { track: function () { __pixels.push(["ttq"].concat([].slice.call(arguments))); } };
  window.__page = [];
  window.Frameline = window.Frameline || { q: [] };
  Frameline.q.push(function (F) {
    var p = F.player();
    ${JSON.stringify(events)}.forEach(function (name) {
      p.on(name, function (data) { __page.push({ name: name, data: data, at: performance.now(), time: document.querySelector("video").currentTime }); });
    });
  });
</script>`;
}

/** Polls `check` until it returns a truthy value (bounded). */
export async function until<T>(check: () => T | Promise<T>, timeoutMs = 10000, stepMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await Bun.sleep(stepMs);
  }
}

/** Waits until the page's video has played past `seconds`. */
export function playedPast(page: Page, seconds: number, timeout = 15_000) {
  return page.waitForFunction((t) => document.querySelector("video")!.currentTime > t, seconds, { timeout });
}

/** A player page of a real app's video: the app behind a local server that also serves the stream, the core and the entry. */
export interface PlayerOverApp {
  dir: string;
  browser: Browser;
  server: LocalServer;
  t: TestApp;
  w: TestWorkspace;
  video: { id: number; code: string };
  stop(): Promise<void>;
}

/**
 * Creates a video named `title` in a fresh workspace of a test app, publishes its
 * player with `settings` at `/<page>.html` on a local server that forwards
 * everything else (the events host) to the app, and launches Chromium.
 */
export async function playerOverApp(title: string, settings: PlayerConfig["settings"], pageName: string): Promise<PlayerOverApp> {
  const dir = tempDir();
  const t = await testApp();
  const w = await t.workspace();
  const created = await t.call("POST", "/api/v1/videos", { token: w.token, body: { title } });
  const video = { id: created.body.video.id as number, code: created.body.video.code as string };
  const [, build, browser] = await Promise.all([makeHlsStream(join(dir, "media")), buildCore(join(dir, "p")), launchBrowser()]);
  const server = serve({ "/media/": join(dir, "media"), "/cdn/p/": join(dir, "p") }, { forward: (req) => t.app.handle(req) });
  const cfg: PlayerConfig = {
    video: { ...testVideo(video.code, `${server.url}/media/`), id: video.id, title, workspace_code: w.code },
    settings,
    playlist: null,
    events_url: server.url,
  };
  await publishEntry(server, cfg, `${server.url}/cdn/p/${build.core}`, pageName);
  return {
    dir,
    browser,
    server,
    t,
    w,
    video,
    async stop() {
      await browser.close();
      server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
