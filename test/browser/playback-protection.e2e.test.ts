/**
 * Playback protection in Chromium over the real app (README "Playback protection"):
 * a clip uploaded and encoded, its video limited to one site and to signed URLs,
 * and the embed snippet on a seller's page. The page on the allowed host plays (its
 * player fetched a token and every segment carried it); the same page on another
 * host name shows the refusal and fetches nothing from the media host. A page with
 * plain hls.js and a token minted offline with a signing key plays, and stops once
 * the key is revoked. A public playlist whose item is the protected video plays that
 * item with a token of its own. The same video encrypted (AES-128, without re-encoding)
 * still plays there, its segments at rest no MPEG-TS and its key refused elsewhere; a
 * video asking for encryption before its upload is encrypted as it is encoded.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHmac } from "node:crypto";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { startEncoder } from "../../server/workers/encoder.ts";
import { runNextEncryption } from "../../server/workers/encryptor.ts";
import { testApp, UNLIMITED, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { launchBrowser, page as html, playedPast, ROOT, serve, type LocalServer } from "../helpers/browser.ts";
import { settledStatus } from "../helpers/status.ts";
import { clip } from "../helpers/media.ts";
import { looksLikeTransportStream } from "../helpers/hls.ts";

setDefaultTimeout(180_000);

let t: TestApp;
let ws: TestWorkspace;
let api: ReturnType<typeof Bun.serve>;
let site: LocalServer;
let browser: Browser;
let stopEncoder: (() => Promise<void>) | undefined;
let video: { id: number; code: string; landscape_hls: string };

/** Every URL the page asked for, in order. */
function recordRequests(p: Page): string[] {
  const urls: string[] = [];
  p.on("request", (r) => urls.push(r.url()));
  return urls;
}

beforeAll(async () => {
  let app: TestApp["app"] | undefined;
  api = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => app!.handle(req) });
  t = await testApp({ publicUrl: `http://127.0.0.1:${api.port}`, config: UNLIMITED });
  app = t.app;
  ws = await t.workspace();
  stopEncoder = startEncoder(t.deps, { pollMs: 100 });
  const [path, launched] = await Promise.all([clip("long"), launchBrowser()]);
  browser = launched;
  const created = await t.createVideo(ws, { title: "Protected" });
  expect((await t.upload(ws, created.id, path)).status).toBe(202);
  expect(await settledStatus(t, ws.token, created.id)).toBe("ready");

  // Only pages on 127.0.0.1 (any port) may play it, and every file needs a token.
  const patched = await t.call("PATCH", `/api/v1/videos/${created.id}`, {
    token: ws.token,
    body: { allowed_origins: ["127.0.0.1"], require_signed_urls: true },
  });
  expect(patched.status).toBe(200);
  video = patched.body.video;

  const embed = (await t.call("GET", `/api/v1/videos/${created.id}/embed`, { token: ws.token })).body.html as string;
  site = serve({ "/hls/": join(ROOT, "node_modules/hls.js/dist") });
  site.route("/sales.html", html(`<h1>Our offer</h1><div style="width:640px">${embed}</div>`));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stopEncoder?.();
  site?.stop();
  api?.stop(true);
});

describe("the embed snippet of a protected video", () => {
  test("on the allowed site it asks for a token and plays; every segment carries the token", async () => {
    const p = await browser.newPage();
    const urls = recordRequests(p);
    await p.goto(`${site.url}/sales.html`);
    await p.click(".fl-big");
    await playedPast(p, 1.5, 60_000);
    expect(urls.some((u) => u.includes(`/v1/playback/${video.code}/token`))).toBe(true);
    // Playlists, segments and the poster: each asked for with the token.
    const files = urls.filter((u) => new URL(u).pathname.startsWith(`/media/videos/${video.code}/`));
    expect(files.filter((u) => /\.(ts|m4s|mp4)$/.test(new URL(u).pathname)).length).toBeGreaterThan(0);
    expect(files.filter((u) => new URL(u).pathname.endsWith(".m3u8")).length).toBeGreaterThanOrEqual(2);
    for (const u of files) expect(new URL(u).searchParams.get("token")).toBeTruthy();
    await p.close();
  });

  test("on another host name it shows the refusal and fetches nothing from the media host", async () => {
    const p = await browser.newPage();
    const urls = recordRequests(p);
    await p.goto(`${site.url.replace("127.0.0.1", "localhost")}/sales.html`);
    const refusal = p.locator(".frameline-player [role=alert]");
    await refusal.waitFor({ timeout: 30_000 });
    expect(await refusal.textContent()).toBe("This video can't be played on this site");
    expect(await p.locator(".frameline-player video").count()).toBe(0);
    expect(urls.filter((u) => u.includes("/media/"))).toEqual([]);
    expect(urls.filter((u) => u.includes("/v1/playback/"))).toEqual([]);
    await p.close();
  });
});

describe("a protected video inside a playlist", () => {
  test("a public container's playlist plays it: the player asks for a token for that item and every file carries it", async () => {
    const container = await t.createVideo(ws, { title: "Course" });
    expect((await t.upload(ws, container.id, await clip("landscape"))).status).toBe(202);
    expect(await settledStatus(t, ws.token, container.id)).toBe("ready");
    const made = await t.call("POST", "/api/v1/playlists", {
      token: ws.token,
      body: {
        video_id: container.id,
        auto_advance: false,
        items: [
          { video_code: container.code, title: "Intro" },
          { video_code: video.code, title: "Members only" },
        ],
      },
    });
    expect(made.status).toBe(201);
    const embed = (await t.call("GET", `/api/v1/videos/${container.id}/embed`, { token: ws.token })).body.html as string;
    site.route("/course.html", html(`<div style="width:640px">${embed}</div>`));
    const p = await browser.newPage();
    const urls = recordRequests(p);
    await p.goto(`${site.url}/course.html`);
    await p.waitForSelector(".fl-list li", { timeout: 30_000 });
    // The public container needs no token.
    expect(urls.some((u) => u.includes("/v1/playback/"))).toBe(false);
    await p.locator(".fl-list li").nth(1).click();
    await playedPast(p, 1.5, 60_000);
    expect(urls.some((u) => u.includes(`/v1/playback/${video.code}/token`))).toBe(true);
    const files = urls.filter((u) => new URL(u).pathname.startsWith(`/media/videos/${video.code}/`));
    expect(files.filter((u) => /\.(ts|m4s|mp4)$/.test(new URL(u).pathname)).length).toBeGreaterThan(0);
    for (const u of files) expect(new URL(u).searchParams.get("token")).toBeTruthy();
    await p.close();
  });
});

describe("a token minted offline with a signing key", () => {
  test("plays in plain hls.js on the allowed site, and stops once the key is revoked", async () => {
    const key = (await t.call("POST", "/api/v1/signing-keys", { token: ws.token })).body.signing_key as { id: string; secret: string };
    // As the README's Node example mints it.
    const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString("base64url");
    const input = `${b64({ alg: "HS256", typ: "JWT", kid: key.id })}.${b64({ sub: video.code, kid: key.id, exp: Math.floor(Date.now() / 1000) + 600 })}`;
    const token = `${input}.${createHmac("sha256", Buffer.from(key.secret, "base64url")).update(input).digest("base64url")}`;
    const manifest = `${video.landscape_hls}?token=${token}`;
    site.route(
      "/own-player.html",
      html(
        `<video muted playsinline style="width:640px"></video><script src="/hls/hls.light.min.js"></script>
<script>
  window.__errors = [];
  const hls = new Hls();
  hls.on(Hls.Events.ERROR, (_, data) => { if (data.fatal) window.__errors.push(data.details + ":" + (data.response && data.response.code)); });
  hls.loadSource(${JSON.stringify(manifest)});
  hls.attachMedia(document.querySelector("video"));
  document.querySelector("video").play().catch(() => {});
</script>`,
      ),
    );
    const p = await browser.newPage();
    await p.goto(`${site.url}/own-player.html`);
    await playedPast(p, 1, 60_000);
    await p.close();

    expect((await t.call("DELETE", `/api/v1/signing-keys/${key.id}`, { token: ws.token })).status).toBe(200);
    const after = await browser.newPage();
    await after.goto(`${site.url}/own-player.html`);
    await after.waitForFunction(() => (window as unknown as { __errors: string[] }).__errors.length > 0, undefined, { timeout: 30_000 });
    expect(await after.evaluate(() => (window as unknown as { __errors: string[] }).__errors)).toEqual(["manifestLoadError:403"]);
    expect(await after.evaluate(() => document.querySelector("video")!.currentTime)).toBe(0);
    await after.close();
  });
});

describe("an encrypted stream", () => {
  /** The segments under a master's folder, as stored. */
  async function storedSegments(master: string): Promise<Uint8Array[]> {
    const dir = master.slice(master.indexOf("/media/") + "/media/".length, master.lastIndexOf("/") + 1);
    const out: Uint8Array[] = [];
    for await (const info of t.deps.blobs.media.list(dir)) {
      if (info.key.endsWith(".ts")) out.push(new Uint8Array(await new Response((await t.deps.blobs.media.get(info.key))!.body).arrayBuffer()));
    }
    return out;
  }

  test("the protected video, encrypted without re-encoding, plays on the allowed page (hls.js decrypts); its key is refused elsewhere", async () => {
    const plain = (await t.call("GET", `/api/v1/videos/${video.id}`, { token: ws.token })).body.video;
    expect((await storedSegments(plain.landscape_hls)).every(looksLikeTransportStream)).toBe(true);
    expect((await t.call("PATCH", `/api/v1/videos/${video.id}`, { token: ws.token, body: { encryption: "aes-128" } })).status).toBe(200);
    while (await runNextEncryption(t.deps));
    const read = (await t.call("GET", `/api/v1/videos/${video.id}`, { token: ws.token })).body.video;
    expect(read.landscape_hls).toEndWith("/master-aes128.m3u8");
    const segments = await storedSegments(read.landscape_hls);
    expect(segments.length).toBeGreaterThan(1);
    expect(segments.some(looksLikeTransportStream)).toBe(false);

    const key = `http://127.0.0.1:${api.port}/media/videos/${video.code}/aes128.key`;
    const token = (await t.call("POST", `/api/v1/videos/${video.id}/token`, { token: ws.token })).body.token as string;
    expect((await fetch(key, { headers: { Origin: site.url } })).status).toBe(403);
    expect((await fetch(`${key}?token=${token}`, { headers: { Origin: "https://elsewhere.example" } })).status).toBe(403);
    expect((await fetch(`${key}?token=${token}`, { headers: { Origin: site.url } })).status).toBe(200);

    const p = await browser.newPage();
    const urls = recordRequests(p);
    await p.goto(`${site.url}/sales.html`);
    await p.click(".fl-big");
    await playedPast(p, 1.5, 60_000);
    expect(urls.some((u) => new URL(u).pathname === `/media/videos/${video.code}/aes128.key` && new URL(u).searchParams.get("token"))).toBe(true);
    expect(urls.some((u) => /seg_\d+-aes128\.ts$/.test(new URL(u).pathname))).toBe(true);
    await p.close();
  });

  test("a video that asks for encryption before its upload is encrypted as it is encoded, and plays", async () => {
    const fresh = await t.createVideo(ws, { title: "Sealed" });
    expect((await t.call("PATCH", `/api/v1/videos/${fresh.id}`, { token: ws.token, body: { encryption: "aes-128" } })).status).toBe(200);
    expect((await t.upload(ws, fresh.id, await clip("landscape"))).status).toBe(202);
    expect(await settledStatus(t, ws.token, fresh.id)).toBe("ready");
    const read = (await t.call("GET", `/api/v1/videos/${fresh.id}`, { token: ws.token })).body.video;
    expect(read.landscape_hls).toEndWith("/master.m3u8");
    expect((await storedSegments(read.landscape_hls)).some(looksLikeTransportStream)).toBe(false);
    const embed = (await t.call("GET", `/api/v1/videos/${fresh.id}/embed`, { token: ws.token })).body.html as string;
    site.route("/sealed.html", html(`<div style="width:640px">${embed}</div>`));
    const p = await browser.newPage();
    const urls = recordRequests(p);
    await p.goto(`${site.url}/sealed.html`);
    await p.click(".fl-big");
    await playedPast(p, 1, 60_000);
    expect(urls.some((u) => new URL(u).pathname === `/media/videos/${fresh.code}/aes128.key`)).toBe(true);
    await p.close();
  });
});
