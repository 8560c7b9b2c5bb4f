import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compilePlayer, DEFAULT_SOURCES, featureFlags, pushPlayer, type BakedPlayerConfig } from "../../compiler/index.ts";
import { createFsBlobStore } from "../../server/storage/blob/index.ts";
import { publishVideo } from "../../server/domains/publish/service.ts";
import type { BlobStore } from "../../server/storage/blob/index.ts";
import { FIXTURE_PLAYER } from "../fixtures/player/sources.ts";
import { testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";

let t: TestApp;
let ws: TestWorkspace;

beforeAll(async () => {
  // Silent: the outage tests log the failures they provoke on purpose.
  t = await testApp({ config: { logLevel: "silent", limits: { readsPerMinute: 100_000, writesPerMinute: 100_000 }, playerSources: FIXTURE_PLAYER } });
  ws = await t.workspace();
}, 120_000);

async function video(title = "Compiled", token = ws.token) {
  const res = await t.call("POST", "/api/v1/videos", { token, body: { title } });
  expect(res.status).toBe(201);
  return res.body.video as { id: number; code: string; script_url: string };
}

const read = async (store: BlobStore, key: string) => {
  const object = await store.get(key);
  return object ? new Response(object.body).text() : undefined;
};

const cdnPath = (url: string) => new URL(url).pathname;

/** What the fixture entry's bundle pushes into `globalThis.__flFixture` when run. */
function runEntry(source: string): { config: any; core: string; features: string[] } {
  const g = globalThis as unknown as { __flFixture?: unknown[] };
  g.__flFixture = [];
  new Function(source)();
  return g.__flFixture[0] as { config: any; core: string; features: string[] };
}

describe("compile and push", () => {
  test("a deploy puts the entry on both targets, loading a content-hashed core that is on both too", async () => {
    const v = await video("Launch video");
    const res = await t.call("POST", `/api/v1/videos/${v.id}/deploy`, { token: ws.token, body: { style_options: { main_color: "#abcdef" } } });
    expect(res.status).toBe(200);
    const a = await read(t.deps.blobs.cdnA, `p/${v.code}.js`);
    const b = await read(t.deps.blobs.cdnB, `p/${v.code}.js`);
    expect(a).toBeDefined();
    expect(a).toBe(b);
    const run = runEntry(a!);
    expect(run.config.video).toMatchObject({
      id: v.id,
      code: v.code,
      title: "Launch video",
      workspace_code: ws.code,
      default_orientation: "landscape",
      plain_mode: false,
      landscape: null,
      portrait: null,
    });
    expect(run.config.settings.style_options.main_color).toBe("#abcdef");
    expect(run.config.playlist).toBeNull();
    // Nothing about the deployment: no events host, the core named beside the entry.
    expect(run.config.events_url).toBeUndefined();
    expect(JSON.stringify(run.config)).not.toContain("127.0.0.1");
    expect(run.core).toMatch(/^core-[A-Z0-9]+\.js$/);
    const coreKey = `p/${run.core}`;
    for (const store of [t.deps.blobs.cdnA, t.deps.blobs.cdnB]) {
      const core = await read(store, coreKey);
      expect(core).toContain("FIXTURE_CORE");
      // The lazy chunk (hls.js in the real player) is its own hashed file.
      const keys: string[] = [];
      for await (const info of store.list("p/chunk-")) keys.push(info.key);
      expect(keys.length).toBeGreaterThan(0);
      expect(await read(store, keys[0]!)).toContain("FIXTURE_HEAVY_CHUNK");
      expect((await store.head(coreKey))!.cacheControl).toContain("immutable");
      expect((await store.head(`p/${v.code}.js`))!.cacheControl).toBe("public, max-age=30, stale-while-revalidate=600");
    }
  });

  test("feature flags are define constants: a feature's code ships only when the video uses it", async () => {
    const v = await video();
    await t.call("POST", `/api/v1/videos/${v.id}/deploy`, { token: ws.token, body: {} });
    const plain = (await read(t.deps.blobs.cdnA, `p/${v.code}.js`))!;
    for (const marker of ["FIXTURE_CHAPTERS_CODE", "FIXTURE_CTA_CODE", "FIXTURE_CAPTIONS_CODE", "FIXTURE_PLAYLIST_CODE", "FIXTURE_AUTOPLAY_CODE"])
      expect(plain).not.toContain(marker);

    // Enabled without chapters still ships no chapter code; with chapters it does.
    await t.call("POST", `/api/v1/videos/${v.id}/deploy`, {
      token: ws.token,
      body: { chapters_options: { enabled: true }, autoplay_options: { enabled: true } },
    });
    const half = (await read(t.deps.blobs.cdnA, `p/${v.code}.js`))!;
    expect(half).not.toContain("FIXTURE_CHAPTERS_CODE");
    expect(half).toContain("FIXTURE_AUTOPLAY_CODE");
    await t.call("POST", `/api/v1/videos/${v.id}/deploy`, {
      token: ws.token,
      body: {
        chapters_options: { chapters: [{ time_s: 5, title: "Intro" }] },
        cta_cards_options: { enabled: true, cards: [{ time_s: 3, text: "Buy" }] },
        captions_options: { enabled: true },
      },
    });
    const full = (await read(t.deps.blobs.cdnA, `p/${v.code}.js`))!;
    for (const marker of ["FIXTURE_CHAPTERS_CODE", "FIXTURE_CTA_CODE", "FIXTURE_CAPTIONS_CODE", "FIXTURE_AUTOPLAY_CODE"]) expect(full).toContain(marker);
    expect(full).not.toContain("FIXTURE_PLAYLIST_CODE");
  });

  test("media sizes come from the video row, read defensively", async () => {
    const v = await video();
    await t.deps.sql`UPDATE videos SET landscape_hls = 'http://127.0.0.1:8080/media/l.m3u8', landscape_thumb = 'http://127.0.0.1:8080/media/l.jpg',
      landscape_media = ${t.deps.sql.json({ status: "ready", progress: 100, error: null, w: 1920, h: 1080, aspect_ratio: "16/9", padding: "56.25%" })},
      portrait_hls = 'http://127.0.0.1:8080/media/p.m3u8', portrait_media = ${t.deps.sql.json({ status: "ready", progress: 100, error: null })}
      WHERE id = ${v.id}`;
    const { versionHash } = await publishVideo(t.deps, ws.id, v.id);
    expect(versionHash).toMatch(/^[0-9a-f]{16}$/);
    const run = runEntry((await read(t.deps.blobs.cdnB, `p/${v.code}.js`))!);
    expect(run.config.video.landscape).toEqual({ hls: "http://127.0.0.1:8080/media/l.m3u8", poster: "http://127.0.0.1:8080/media/l.jpg", w: 1920, h: 1080 });
    expect(run.config.video.portrait).toEqual({ hls: "http://127.0.0.1:8080/media/p.m3u8", poster: null, w: 720, h: 1280 });
  });

  test("publishVideo compiles the live settings and throws for an unknown or foreign video", async () => {
    const v = await video();
    await t.call("POST", `/api/v1/videos/${v.id}/draft`, { token: ws.token, body: { style_options: { main_color: "#0f0f0f" } } });
    await publishVideo(t.deps, ws.id, v.id);
    // The draft is not live, so it is not in the bundle.
    expect(await read(t.deps.blobs.cdnA, `p/${v.code}.js`)).not.toContain("#0f0f0f");
    const other = await t.workspace();
    await expect(publishVideo(t.deps, other.id, v.id)).rejects.toThrow();
    await expect(publishVideo(t.deps, ws.id, 999_999_999)).rejects.toThrow();
  });

  test("playlist items carry media of same-workspace videos only; publishing an item video republishes its container", async () => {
    const item = await video("Lesson 1");
    const container = await video("Course");
    const other = await t.workspace();
    const foreign = await video("Foreign", other.token);
    await t.deps.sql`UPDATE videos SET landscape_hls = 'http://x/foreign.m3u8' WHERE id = ${foreign.id}`;
    const created = await t.call("POST", "/api/v1/playlists", {
      token: ws.token,
      body: {
        video_id: container.id,
        items: [
          { video_code: item.code, title: "One" },
          { video_code: foreign.code, title: "Theirs" },
          { video_code: "not-a-video", title: "Ghost" },
        ],
      },
    });
    expect(created.status).toBe(201);
    let run = runEntry((await read(t.deps.blobs.cdnA, `p/${container.code}.js`))!);
    expect(run.features).toContain("FIXTURE_PLAYLIST_CODE");
    expect(run.config.playlist).toMatchObject({
      playback_mode: "linear",
      auto_advance: true,
      auto_advance_delay_ms: 3000,
      loop: false,
      lesson_navigation: "sidebar",
      playlist_chrome: "rail",
    });
    expect(run.config.playlist.items.map((i: { hls: string | null }) => i.hls)).toEqual([null, null, null]);

    // The item's media arrives: publishing the item refreshes the container's bundle.
    await t.deps
      .sql`UPDATE videos SET landscape_hls = 'http://127.0.0.1:8080/media/one.m3u8', landscape_thumb = 'http://127.0.0.1:8080/media/one.jpg' WHERE id = ${item.id}`;
    await publishVideo(t.deps, ws.id, item.id);
    run = runEntry((await read(t.deps.blobs.cdnB, `p/${container.code}.js`))!);
    expect(run.config.playlist.items[0]).toEqual({
      video_code: item.code,
      title: "One",
      lesson_label: null,
      duration_s: null,
      thumb_url: null,
      hls: "http://127.0.0.1:8080/media/one.m3u8",
      poster: "http://127.0.0.1:8080/media/one.jpg",
    });
    // Another workspace's video is never resolved, even by its real code.
    expect(run.config.playlist.items[1]).toMatchObject({ video_code: foreign.code, hls: null, poster: null });
  });
});

/**
 * Simulates a CDN outage (a remote CDN cannot fail on demand here): every
 * write to target `which` fails while `during` runs.
 */
async function withOutage(which: "cdnA" | "cdnB", during: () => Promise<void>): Promise<void> {
  const real = t.deps.blobs[which];
  t.deps.blobs[which] = {
    ...real,
    put: async () => {
      throw new Error(`simulated CDN outage: ${which} refuses writes`);
    },
  };
  try {
    await during();
  } finally {
    t.deps.blobs[which] = real;
  }
}

describe("a failing CDN target", () => {
  test("deploy answers 500, creates no version, and the previous bundle keeps serving on both targets", async () => {
    const v = await video();
    const first = await t.call("POST", `/api/v1/videos/${v.id}/deploy`, { token: ws.token, body: { style_options: { main_color: "#101010" } } });
    expect(first.status).toBe(200);
    const before = { a: await read(t.deps.blobs.cdnA, `p/${v.code}.js`), b: await read(t.deps.blobs.cdnB, `p/${v.code}.js`) };
    const served = await t.call("GET", cdnPath(v.script_url));
    await t.call("POST", `/api/v1/videos/${v.id}/draft`, { token: ws.token, body: { style_options: { main_color: "#202020" } } });

    // Target B refuses writes; target A accepts the new entry, so its previous bytes must be put back.
    await withOutage("cdnB", async () => {
      for (const path of [`/api/v1/videos/${v.id}/deploy`, `/api/v1/videos/${v.id}/deploys/${first.body.version_id}/restore`]) {
        const res = await t.call("POST", path, { token: ws.token, body: path.endsWith("deploy") ? { style_options: { main_color: "#303030" } } : undefined });
        expect(res.status, path).toBe(500);
        expect(res.body.error.code).toBe("DEPLOY_FAILED");
      }
    });
    // Nothing changed: one version, live settings, the draft, no second event.
    const versions = await t.deps.sql`SELECT id, is_live FROM deploy_versions WHERE workspace_video_id = ${v.id}`;
    expect([...versions]).toEqual([{ id: first.body.version_id, is_live: true }]);
    const settings = await t.call("GET", `/api/v1/videos/${v.id}/settings`, { token: ws.token });
    expect(settings.body.settings.style_options.main_color).toBe("#101010");
    expect(await t.deps.sql`SELECT 1 FROM video_drafts WHERE video_id = ${v.id}`).toHaveLength(1);
    expect(await t.deps.sql`SELECT 1 FROM outbox WHERE event = 'video.settings.deployed' AND (data ->> 'video_id')::bigint = ${v.id}`).toHaveLength(1);
    // The previous bundle, byte for byte, on both targets and at the script URL.
    expect(await read(t.deps.blobs.cdnA, `p/${v.code}.js`)).toBe(before.a);
    expect(await read(t.deps.blobs.cdnB, `p/${v.code}.js`)).toBe(before.b);
    const after = await t.call("GET", cdnPath(v.script_url));
    expect(after.status).toBe(200);
    expect(after.text).toBe(served.text);
    expect(after.text).toContain("#101010");
  });

  test("a first deploy that fails leaves no entry behind on the target that accepted it", async () => {
    const v = await video();
    // Target B is down before this video ever had a bundle.
    await withOutage("cdnB", async () => {
      expect((await t.call("POST", `/api/v1/videos/${v.id}/deploy`, { token: ws.token, body: {} })).status).toBe(500);
    });
    expect(await t.deps.blobs.cdnA.head(`p/${v.code}.js`)).toBeUndefined();
    expect((await t.call("GET", cdnPath(v.script_url))).status).toBe(404);
    expect(await t.deps.sql`SELECT 1 FROM deploy_versions WHERE workspace_video_id = ${v.id}`).toHaveLength(0);
  });

  test("a playlist write during an outage is 500 and leaves the playlist as it was", async () => {
    const v = await video();
    await withOutage("cdnA", async () => {
      const res = await t.call("POST", "/api/v1/playlists", { token: ws.token, body: { video_id: v.id } });
      expect(res.status).toBe(500);
    });
    expect((await t.call("GET", `/api/v1/playlists/${v.id}`, { token: ws.token })).status).toBe(404);
  });
});

describe("/cdn", () => {
  test("the entry is JavaScript, CORS *, kept briefly and revalidated by ETag, and a deploy changes it in this process at once", async () => {
    const v = await video();
    await t.call("POST", `/api/v1/videos/${v.id}/deploy`, { token: ws.token, body: { style_options: { main_color: "#aaaaaa" } } });
    const first = await t.call("GET", cdnPath(v.script_url));
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(first.headers.get("cache-control")).toBe("public, max-age=30, stale-while-revalidate=600");
    expect(first.headers.get("access-control-allow-origin")).toBe("*");
    const etag = first.headers.get("etag");
    expect(etag).toBeTruthy();
    // A revalidation reads nothing from the bucket: the validator is known.
    const store = t.deps.blobs.cdnA;
    const get = store.get.bind(store);
    let reads = 0;
    store.get = (...args) => (reads++, get(...args));
    try {
      const again = await t.call("GET", cdnPath(v.script_url), { headers: { "If-None-Match": etag! } });
      expect(again.status).toBe(304);
      expect(again.text).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
      expect(again.headers.get("cache-control")).toBe("public, max-age=30, stale-while-revalidate=600");
      expect(reads).toBe(0);
    } finally {
      store.get = get;
    }

    await t.call("POST", `/api/v1/videos/${v.id}/deploy`, { token: ws.token, body: { style_options: { main_color: "#bbbbbb" } } });
    const fresh = await t.call("GET", cdnPath(v.script_url), { headers: { "If-None-Match": etag! } });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("etag")).not.toBe(etag);
    expect(fresh.text).toContain("#bbbbbb");

    // Gzipped for clients that accept it, under its own validator.
    const zipped = await t.app.handle(new Request(`http://127.0.0.1:8080${cdnPath(v.script_url)}`, { headers: { "Accept-Encoding": "gzip, br" } }));
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("vary")).toBe("Accept-Encoding");
    const zippedEtag = zipped.headers.get("etag")!;
    expect(zippedEtag).not.toBe(fresh.headers.get("etag"));
    expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await zipped.arrayBuffer())))).toBe(fresh.text);
    const zipped304 = await t.app.handle(
      new Request(`http://127.0.0.1:8080${cdnPath(v.script_url)}`, { headers: { "Accept-Encoding": "gzip", "If-None-Match": zippedEtag } }),
    );
    expect(zipped304.status).toBe(304);

    const core = runEntry(fresh.text).core;
    const coreRes = await t.call("GET", `/cdn/p/${core}`);
    expect(coreRes.status).toBe(200);
    expect(coreRes.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(coreRes.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(coreRes.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("unknown and malformed keys are 404; HEAD answers headers only", async () => {
    expect((await t.call("GET", "/cdn/p/00000000-0000-0000-0000-000000000000.js")).status).toBe(404);
    expect((await t.call("GET", "/cdn/p/..%2F..%2Fetc%2Fpasswd")).status).toBe(404);
    expect((await t.call("GET", "/cdn/p/.hidden.js")).status).toBe(404);
    const v = await video();
    await publishVideo(t.deps, ws.id, v.id);
    const head = await t.call("HEAD", cdnPath(v.script_url));
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(Number(head.headers.get("content-length"))).toBeGreaterThan(0);
  });
});

describe("the compiler is only a compiler", () => {
  test("compiler/ imports nothing of server/ but types", () => {
    const dir = join(import.meta.dir, "..", "..", "compiler");
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const source = readFileSync(join(dir, file), "utf8");
      const values = [...source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+"(\.\.\/server\/[^"]+)"/gm)].map((m) => m[1]);
      expect(values, file).toEqual([]);
    }
  });

  test("compilePlayer and pushPlayer need a config, flags, sources and targets: no database, no app", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fl-compile-"));
    try {
      const targets = [createFsBlobStore(join(dir, "a")), createFsBlobStore(join(dir, "b"))];
      const settings = { autoplay_options: { enabled: true } };
      const config = { video: { code: "pure-code", title: "Pure" }, settings, playlist: null } as unknown as BakedPlayerConfig;
      const player = await compilePlayer({ config, flags: featureFlags(settings), sources: FIXTURE_PLAYER });
      expect(player.entryKey).toBe("p/pure-code.js");
      expect(player.versionHash).toMatch(/^[0-9a-f]{16}$/);
      await pushPlayer(targets, player);
      for (const target of targets) {
        const run = runEntry((await read(target, "p/pure-code.js"))!);
        expect(run.features).toEqual(["FIXTURE_AUTOPLAY_CODE"]);
        expect(run.config.video.title).toBe("Pure");
        expect(await read(target, `p/${run.core}`)).toContain("FIXTURE_CORE");
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the real player", () => {
  test.skipIf(!existsSync(DEFAULT_SOURCES.entry) || !existsSync(DEFAULT_SOURCES.core))(
    "the default sources are player/entry.ts and player/core.ts and compile",
    async () => {
      expect(DEFAULT_SOURCES.entry.endsWith(join("player", "entry.ts"))).toBe(true);
      expect(DEFAULT_SOURCES.core.endsWith(join("player", "core.ts"))).toBe(true);
      const real = await testApp();
      const rws = await real.workspace();
      const v = (await real.call("POST", "/api/v1/videos", { token: rws.token, body: { title: "Real" } })).body.video;
      const res = await real.call("POST", `/api/v1/videos/${v.id}/deploy`, {
        token: rws.token,
        body: { chapters_options: { enabled: true, chapters: [{ time_s: 1, title: "a" }] } },
      });
      expect(res.status).toBe(200);
      const entry = await real.call("GET", cdnPath(v.script_url));
      expect(entry.status).toBe(200);
      expect(entry.text).toContain(v.code);
      // The core is named beside the entry, not by a URL.
      const core = /"(core-[A-Z0-9]+\.js)"/.exec(entry.text);
      expect(core).not.toBeNull();
      expect(entry.text).not.toContain("127.0.0.1");
      expect((await real.call("GET", `/cdn/p/${core![1]}`)).status).toBe(200);
    },
    60_000,
  );
});

describe("CDN_URL", () => {
  test("the embed script and the snippet point at the CDN, naming where the events host and the media are; the API stays on PUBLIC_URL", async () => {
    const cdn = await testApp({ config: { cdnUrl: "https://cdn.example.com" }, fixturePlayer: true });
    const ws = await cdn.workspace();
    const v = await cdn.createVideo(ws);
    const script = new URL(v.script_url);
    expect(`${script.origin}${script.pathname}`).toBe(`https://cdn.example.com/p/${v.code}.js`);
    expect(Object.fromEntries(script.searchParams)).toEqual({ e: "http://127.0.0.1:8080", m: "http://127.0.0.1:8080/media/" });
    const embed = await cdn.call("GET", `/api/v1/videos/${v.id}/embed`, { token: ws.token });
    expect(embed.body.html).toContain(`src="${v.script_url.replaceAll("&", "&amp;")}"`);
    const status = await cdn.call("GET", `/api/v1/videos/${v.id}/status`, { token: ws.token });
    expect(status.body.status_url).toStartWith("http://127.0.0.1:8080/api/v1/");
  });
});
