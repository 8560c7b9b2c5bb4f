/**
 * The embeddable player in real headless Chromium, on a real HLS stream made
 * by ffmpeg, built with esbuild exactly as the compiler builds it, behind the
 * embed snippet of docs/api.md "Status object" (`embed.html` / `plain_html`).
 * Self-contained for now: a local server serves the bundles and the stream and
 * records what the player posts to `/v1/collect` and `/v1/track`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import type { CollectEvent, PlayerConfig } from "../../player/types.ts";
import { buildTracker } from "../../tracker/build.ts";
import { ADMIN_KEY, testApp } from "../helpers/app.ts";
import {
  ROOT,
  buildCore,
  buildEntry,
  embedHtml,
  flagsFor,
  launchBrowser,
  makeHlsStream,
  page,
  serve,
  tempDir,
  until,
  playedPast,
  type LocalServer,
  testVideo,
  publishEntry,
} from "../helpers/browser.ts";

const CODE_A = "0b6c3c1e-7f0e-4c55-9d7b-aaaaaaaaaaaa";
const CODE_B = "0b6c3c1e-7f0e-4c55-9d7b-bbbbbbbbbbbb";
const PLAIN = "0b6c3c1e-7f0e-4c55-9d7b-cccccccccccc";
const AUTO = "0b6c3c1e-7f0e-4c55-9d7b-dddddddddddd";
const BROKEN = "0b6c3c1e-7f0e-4c55-9d7b-eeeeeeeeeeee";
const TRACKER_FIRST = "0b6c3c1e-7f0e-4c55-9d7b-111111111111";
const PLAYER_FIRST = "0b6c3c1e-7f0e-4c55-9d7b-222222222222";
const BAR = "#ff8800";
const TRACK_BG = "#123456";

let dir: string;
let browser: Browser;
let server: LocalServer;
let coreUrl: string;
let hlsChunk: string;

function config(code: string, over: Partial<PlayerConfig> & { settings?: PlayerConfig["settings"] } = {}): PlayerConfig {
  return {
    video: testVideo(code, `${server.url}/media/`, { title: "Demo " + code.slice(-4) }),
    settings: {
      style_options: { main_color: "#e11d48", background_color: "#111111", text_color: "#ffffff" },
      progress_options: { enabled: true, bar_color: BAR, background_color: TRACK_BG, height_px: 6 },
      playback_options: { hls_engine: "hlsjs" },
      continue_watching_options: { enabled: true, min_seconds: 1 },
      engagement_options: { heartbeat_s: 2 },
      ...over.settings,
      // As a deploy stores it: the playlist is an option group of the container, which is what turns the feature on.
      ...(over.playlist && { playlist_options: { enabled: true, items: over.playlist.items.map(({ video_code, title }) => ({ video_code, title })) } }),
    },
    playlist: over.playlist ?? null,
    events_url: server.url,
  };
}

const publish = (cfg: PlayerConfig, name: string, plain = false) => publishEntry(server, cfg, coreUrl, name, plain);

const events = (code?: string): CollectEvent[] => server.collects.filter((b) => !code || b.video_code === code).flatMap((b) => b.events);
const types = (code?: string) => new Set(events(code).map((e) => e.type));

beforeAll(async () => {
  dir = tempDir();
  const [, , b] = await Promise.all([
    makeHlsStream(join(dir, "media")),
    buildCore(join(dir, "p")).then((build) => {
      coreUrl = `/cdn/p/${build.core}`;
      hlsChunk = build.files.filter((f) => f.startsWith("chunk-")).sort((x, y) => Bun.file(join(dir, "p", y)).size - Bun.file(join(dir, "p", x)).size)[0];
    }),
    launchBrowser(),
  ]);
  browser = b;
  await Bun.write(join(dir, "media", "en.vtt"), "WEBVTT\n\n00:00.000 --> 00:05.000\nHello captions\n");
  server = serve({ "/media/": join(dir, "media"), "/cdn/p/": join(dir, "p") });
  coreUrl = server.url + coreUrl;
  mkdirSync(join(ROOT, "test/artifacts"), { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("player in Chromium", () => {
  test("poster first, hls.js on idle, the stream on play intent, themed bar, CTA at its time, playlist advances, events arrive", async () => {
    const cfg = config(CODE_A, {
      settings: {
        cta_cards_options: {
          enabled: true,
          cards: [{ time_s: 1, duration_s: 30, text: "Limited offer", button_text: "Buy now", url: "https://example.com/buy" }],
        },
        chapters_options: {
          enabled: true,
          chapters: [
            { time_s: 0, title: "Intro" },
            { time_s: 3, title: "Second half" },
          ],
        },
        captions_options: { enabled: true, tracks: [{ src: "set below", srclang: "en", label: "English", default: true }] },
      },
      playlist: {
        playback_mode: "course",
        auto_advance: true,
        auto_advance_delay_ms: 300,
        loop: false,
        lesson_navigation: "both",
        playlist_chrome: "rail",
        items: [
          {
            video_code: CODE_A,
            title: "Lesson one",
            lesson_label: "Lesson 1",
            duration_s: 6,
            thumb_url: null,
            hls: `${server.url}/media/index.m3u8`,
            poster: `${server.url}/media/poster.jpg`,
          },
          {
            video_code: CODE_B,
            title: "Lesson two",
            lesson_label: "Lesson 2",
            duration_s: 6,
            thumb_url: null,
            hls: `${server.url}/media/index.m3u8?item=b`,
            poster: `${server.url}/media/poster.jpg`,
          },
        ],
      },
    });
    cfg.settings.captions_options!.tracks![0].src = `${server.url}/media/en.vtt`;
    const url = await publish(cfg, "main");
    const p = await browser.newPage({ viewport: { width: 800, height: 700 } });
    const pageErrors: string[] = [];
    p.on("pageerror", (e) => pageErrors.push(String(e)));
    server.requests.length = 0;
    await p.goto(url);

    // Poster first, at the video's aspect ratio; hls.js fetched once the page is idle, nothing of the stream yet.
    await p.waitForSelector(".fl-root video[poster]");
    const box = (await p.locator(".fl-root").boundingBox())!;
    expect(box.width / box.height).toBeCloseTo(640 / 360, 1);
    await until(() => server.requests.some((r) => r.endsWith(hlsChunk)));
    await Bun.sleep(300);
    expect(server.requests.some((r) => r.includes(".m3u8") || r.endsWith(".ts"))).toBe(false);
    expect(await p.locator(".fl-big").isVisible()).toBe(true);

    // Record the playback position at which the CTA card appears.
    await p.evaluate(() => {
      const video = document.querySelector("video")!;
      new MutationObserver((_m, obs) => {
        if (document.querySelector(".fl-cta")) {
          (window as any).__ctaAt = video.currentTime;
          obs.disconnect();
        }
      }).observe(document.querySelector(".fl-layer")!, { childList: true });
    });

    await p.click(".fl-big");
    await playedPast(p, 1.7);
    expect(server.requests.some((r) => r.endsWith(hlsChunk))).toBe(true);
    expect(server.requests.some((r) => r.endsWith(".ts"))).toBe(true);

    // Colours from the settings, as the browser computes them.
    const colours = await p.evaluate(() => ({
      fill: getComputedStyle(document.querySelector(".fl-fill")!).backgroundColor,
      track: getComputedStyle(document.querySelector(".fl-track")!).backgroundColor,
      big: getComputedStyle(document.querySelector(".fl-big")!).backgroundColor,
    }));
    expect(colours.fill).toBe("rgb(255, 136, 0)");
    expect(colours.track).toBe("rgb(18, 52, 86)");
    expect(colours.big).toBe("rgb(225, 29, 72)");

    // The CTA card, at ~1 s.
    const ctaAt = await p.evaluate(() => (window as any).__ctaAt as number);
    expect(ctaAt).toBeGreaterThanOrEqual(1);
    expect(ctaAt).toBeLessThan(1.6);
    expect(await p.locator(".fl-cta a").textContent()).toBe("Buy now");
    // Chapters and captions are on.
    expect(await p.locator(".fl-chapter").textContent()).toBe("Intro");
    expect(await p.locator(".fl-mark").count()).toBe(1);
    expect(await p.evaluate(() => document.querySelector("video")!.textTracks[0]?.mode)).toBe("showing");
    await p.locator(".fl-root").hover();
    await p.screenshot({ path: join(ROOT, "test/artifacts/player.png") });

    // The CTA click is an event (the link opens a new tab, which is closed at once).
    const popup = p
      .context()
      .waitForEvent("page")
      .then((tab) => tab.close());
    await p.click(".fl-cta a");
    await popup.catch(() => {});

    // To the end of lesson one; after the 300 ms delay lesson two plays.
    const seekedFrom = await p.evaluate(() => {
      const v = document.querySelector("video")!;
      const from = v.currentTime;
      v.currentTime = v.duration - 0.6;
      return from;
    });
    await p.waitForFunction(() => document.querySelector(".fl-list li.fl-on") === document.querySelectorAll(".fl-list li")[1], null, { timeout: 10000 });
    await p.waitForFunction(
      () => {
        const v = document.querySelector("video")!;
        return v.currentTime > 0.5 && !v.paused;
      },
      null,
      { timeout: 10000 },
    );
    // The card belongs to the container video, not to lesson two.
    expect(await p.locator(".fl-cta").count()).toBe(0);

    // Leaving the page sends the last batch with sendBeacon.
    await p.close({ runBeforeUnload: true });
    await until(() => types(CODE_B).has("watched"), 15_000); // a loaded machine delivers the beacon late

    const a = types(CODE_A);
    for (const t of ["play", "startup", "watched", "milestone", "seek", "ended", "cta_click", "lesson_completed"] as const) expect(a.has(t)).toBe(true);
    const milestones = events(CODE_A)
      .filter((e) => e.type === "milestone")
      .map((e) => e.percent);
    expect(milestones).toContain(25);
    expect(milestones).toContain(100);
    if (seekedFrom < 4.5) expect(milestones).not.toContain(75); // seeking past 75 % is not watching it
    expect(events(CODE_A).find((e) => e.type === "lesson_completed")!.video_code).toBe(CODE_A);
    expect(events(CODE_A).find((e) => e.type === "cta_click")).toMatchObject({ card_index: 0, url: "https://example.com/buy" });
    const startup = events(CODE_A).find((e) => e.type === "startup")!;
    expect(startup.ms as number).toBeGreaterThan(0);
    const watched = events(CODE_A).filter((e) => e.type === "watched");
    expect(watched[0].from_s as number).toBeLessThan(0.5);
    expect(Math.max(...watched.map((w) => w.to_s as number))).toBeGreaterThan(1.7);
    for (const b of server.collects) {
      expect(b.workspace_code).toBe("ws_test");
      expect(b.session_id).toMatch(/^[0-9a-f]{32}$/);
      expect(b.device_id).toMatch(/^[0-9a-f]{32}$/);
      for (const e of b.events) expect(Math.abs(e.t - Date.now())).toBeLessThan(60000);
    }
    expect(types(CODE_B).has("play")).toBe(true);
    expect(pageErrors).toEqual([]);
  }, 60000);

  test("plain mode: native HLS where the browser has it, fl_sid joins the session, resume, window.Frameline.track", async () => {
    server.collects.length = 0;
    server.requests.length = 0;
    const cfg = config(PLAIN, { settings: { playback_options: { hls_engine: "auto" } } });
    const url = await publish(cfg, "plain", true);
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    const pageErrors: string[] = [];
    p.on("pageerror", (e) => pageErrors.push(String(e)));
    await p.goto(url + "?fl_sid=bridged_session_0001");
    await p.waitForSelector(".fl-root.fl-plain video[poster]");
    expect(await p.locator(".fl-controls").count()).toBe(0);

    // The global object of docs/api.md "Custom events".
    const ids = await p.evaluate(() => [window.Frameline!.getSessionId(), window.Frameline!.getDeviceId()]);
    expect(ids[0]).toBe("bridged_session_0001");
    await p.evaluate(() =>
      window.Frameline!.track("Added To Cart", { value: 49, email: " Ann@Example.com ", phone: "0049 151 1234567", plan: "pro", nested: { a: 1 } }),
    );
    const tracked = await until(() => server.tracks[0]);
    expect(tracked).toMatchObject({ workspace_code: "ws_test", session_id: "bridged_session_0001", device_id: ids[1], event: "Added To Cart", value: 49 });
    expect(tracked.properties).toEqual({ plan: "pro" });
    const sha = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");
    expect(tracked.email_sha256).toBe(sha("ann@example.com"));
    expect(tracked.phone_sha256).toBe(sha("+491511234567"));
    expect(JSON.stringify(tracked)).not.toMatch(/Ann@|1234567/);

    // Chromium 14x+ plays HLS natively: the plain player plays without hls.js.
    const native = await p.evaluate(() => document.createElement("video").canPlayType("application/vnd.apple.mpegurl") !== "");
    await p.click(".fl-big");
    await playedPast(p, 2.2);
    expect(await p.evaluate(() => document.querySelector("video")!.controls)).toBe(true);
    expect(server.requests.some((r) => r.endsWith(hlsChunk))).toBe(!native);
    await p.evaluate(() => document.querySelector("video")!.pause());

    // A returning viewer resumes where they stopped.
    await p.goto(url);
    await p.waitForSelector(".fl-root video[poster]");
    await p.click(".fl-big");
    await playedPast(p, 0);
    expect(await p.evaluate(() => document.querySelector("video")!.currentTime)).toBeGreaterThanOrEqual(2);
    expect(await p.evaluate(() => window.Frameline!.getSessionId())).toBe("bridged_session_0001");
    await ctx.close();
    await until(() => server.collects.some((b) => b.events.some((e) => e.type === "pause")), 15_000);
    // Every batch of this page joined the bridged session (an earlier test's beacons may still arrive: they are not this page's).
    const plain = server.collects.filter((b) => b.video_code === PLAIN);
    expect(plain.length).toBeGreaterThan(0);
    expect(plain.every((b) => b.session_id === "bridged_session_0001")).toBe(true);
    expect(pageErrors).toEqual([]);
  }, 60000);

  test("muted autoplay with unmute prompt, button chrome, playlist_ended at the last item, a broken stream is an error event", async () => {
    server.collects.length = 0;
    const cfg = config(AUTO, {
      settings: { autoplay_options: { enabled: true, muted: true, unmute_prompt: true, unmute_prompt_text: "Tap for sound" } },
      playlist: {
        auto_advance: true,
        auto_advance_delay_ms: 0,
        loop: false,
        lesson_navigation: "sidebar",
        playlist_chrome: "button",
        items: [
          { video_code: BROKEN, title: "Broken", hls: `${server.url}/media/missing.m3u8`, poster: null },
          { video_code: AUTO, title: "Last lesson", hls: `${server.url}/media/index.m3u8`, poster: `${server.url}/media/poster.jpg` },
        ],
      },
    });
    const p = await browser.newPage();
    const pageErrors: string[] = [];
    p.on("pageerror", (e) => pageErrors.push(String(e)));
    await p.goto(await publish(cfg, "autoplay"));

    // Plays muted with no click; the prompt unmutes and restarts from the beginning.
    await p.waitForSelector(".fl-root video");
    await playedPast(p, 1);
    expect(await p.evaluate(() => document.querySelector("video")!.muted)).toBe(true);
    expect(await p.locator(".fl-unmute").textContent()).toBe("Tap for sound");
    await p.click(".fl-unmute");
    const after = await p.evaluate(() => ({ muted: document.querySelector("video")!.muted, t: document.querySelector("video")!.currentTime }));
    expect(after.muted).toBe(false);
    expect(after.t).toBeLessThan(0.5);
    expect(await p.locator(".fl-unmute").count()).toBe(0);

    // The container is the last item: its end is the playlist's end (no loop).
    await p.evaluate(() => {
      const v = document.querySelector("video")!;
      v.currentTime = v.duration - 0.4;
    });
    await p.waitForFunction(() => document.querySelector("video")!.ended, null, { timeout: 10000 });

    // Button chrome: the list opens over the player; the broken item fails as an event, not an exception.
    expect(await p.locator(".fl-layer .fl-list").isHidden()).toBe(true);
    await p.locator(".fl-root").hover();
    await p.click(".fl-pl");
    await p.click(".fl-layer .fl-list li >> nth=0");
    // hls.js retries the manifest by its policy before it calls the error fatal; the 2 s heartbeat flush carries it.
    await until(() => events(BROKEN).some((e) => e.type === "error" && e.fatal === true), 15000);
    await p.close({ runBeforeUnload: true });
    const last = events(AUTO).map((e) => e.type);
    expect(last).toContain("lesson_completed");
    expect(last).toContain("playlist_ended");
    expect(events(AUTO).find((e) => e.type === "lesson_completed")!.video_code).toBe(AUTO);
    // Errors in hls.js's shape, codes not free text.
    expect(events(BROKEN).find((e) => e.type === "error" && e.fatal === true)).toMatchObject({ error_type: "network", details: "manifestLoadError" });
    expect(events(BROKEN).some((e) => e.type === "error" && "message" in e)).toBe(false);
    expect(pageErrors).toEqual([]);
  }, 60000);
});

describe("the player and the tracker on one page", () => {
  /**
   * Storage is blocked (as in a sandboxed frame), so ids cannot be re-read
   * from it: the two scripts agree only if they share one global.
   */
  async function sharedPage(code: string, trackerFirst: boolean) {
    server.collects.length = 0;
    server.tracks.length = 0;
    server.route("/t.js", await buildTracker(), "text/javascript");
    const tracker = `<script src="${server.url}/t.js" data-workspace="ws_tracker" data-host="${server.url}"></script>`;
    const cfg = config(code);
    server.route(`/cdn/p/${code}.js`, await buildEntry(cfg, coreUrl, flagsFor(cfg)), "text/javascript");
    const embed = embedHtml(code, `${server.url}/cdn/p/${code}.js`);
    server.route(`/${code}.html`, page(trackerFirst ? tracker + embed : embed));
    const p = await browser.newPage();
    await p.addInitScript(() => {
      const blocked = () => {
        throw new DOMException("storage blocked", "SecurityError");
      };
      Storage.prototype.getItem = blocked;
      Storage.prototype.setItem = blocked;
    });
    const pageErrors: string[] = [];
    p.on("pageerror", (e) => pageErrors.push(String(e)));
    await p.goto(`${server.url}/${code}.html`);
    await p.waitForSelector(".fl-root video[poster]");
    if (!trackerFirst) {
      // The tracker arrives after the player booted.
      await p.evaluate((html) => {
        const s = document.createElement("script");
        const parsed = new DOMParser().parseFromString(html, "text/html").querySelector("script")!;
        for (const a of parsed.getAttributeNames()) s.setAttribute(a, parsed.getAttribute(a)!);
        document.body.appendChild(s);
      }, tracker);
    }
    await p.waitForFunction(() => typeof (window as any).fl === "function");
    const ids = await p.evaluate(() => ({
      session: window.Frameline!.getSessionId(),
      device: window.Frameline!.getDeviceId(),
      tracker: (window as any).fl("session") as string,
      api: Object.keys(window.Frameline!).sort(),
    }));
    await p.evaluate(() => window.Frameline!.track("shared_page", { order: "either" }));
    await p.click(".fl-big");
    await playedPast(p, 0.5);
    // The heartbeat (2 s) sends a batch while the page is open: no reliance on the beacon at close, which a loaded machine can lose.
    await until(() => server.tracks.length > 0 && server.collects.some((b) => b.video_code === code), 15_000);
    await p.close({ runBeforeUnload: true });
    expect(pageErrors).toEqual([]);
    return ids;
  }

  for (const trackerFirst of [true, false]) {
    test(`${trackerFirst ? "tracker first" : "player first"}: one window.Frameline, one session and device, track() to the tracker's workspace`, async () => {
      const code = trackerFirst ? TRACKER_FIRST : PLAYER_FIRST;
      const ids = await sharedPage(code, trackerFirst);
      expect(ids.api).toEqual(["getDeviceId", "getSessionId", "player", "q", "track"]);
      expect(ids.session).toMatch(/^[0-9a-f]{32}$/);
      expect(ids.tracker).toBe(ids.session);
      // This page's batches: the previous test's page may still deliver its close-time beacon.
      for (const batch of server.collects.filter((b) => b.video_code === code))
        expect({ session: batch.session_id, device: batch.device_id }).toEqual({ session: ids.session, device: ids.device });
      // The tracker's data-workspace wins whichever script came first.
      expect(server.tracks).toHaveLength(1);
      expect(server.tracks[0]).toMatchObject({ workspace_code: "ws_tracker", session_id: ids.session, device_id: ids.device, event: "shared_page" });
      expect(server.collects.every((b) => b.workspace_code === "ws_test")).toBe(true);
    }, 60000);
  }
});

describe("player → the real events host", () => {
  test("the batches Chromium sends are accepted by POST /v1/collect and land in ClickHouse", async () => {
    const t = await testApp();
    const w = await t.workspace();
    const created = await t.call("POST", "/api/v1/videos", { token: w.token, body: { title: "Ingest path" } });
    expect(created.status).toBe(201);
    const code = created.body.video.code as string;
    const real = serve({ "/media/": join(dir, "media"), "/cdn/p/": join(dir, "p") }, { forward: (req) => t.app.handle(req) });
    try {
      const cfg = config(code);
      cfg.video.workspace_code = w.code;
      cfg.events_url = real.url;
      cfg.video.landscape!.hls = `${real.url}/media/index.m3u8`;
      const core = coreUrl.slice(server.url.length);
      real.route(`/cdn/p/${code}.js`, await buildEntry(cfg, real.url + core, flagsFor(cfg)), "text/javascript");
      real.route("/real.html", page(embedHtml(code, `${real.url}/cdn/p/${code}.js`)));
      const p = await browser.newPage();
      await p.goto(`${real.url}/real.html`);
      await p.click(".fl-big");
      await playedPast(p, 1.2);
      await p.evaluate(() => document.querySelector("video")!.pause());
      const session = await p.evaluate(() => window.Frameline!.getSessionId());
      // A browser custom event needs its name declared as a custom metric (docs/api.md "Custom events").
      expect((await t.call("POST", `/admin/v1/workspaces/${w.id}/custom-metrics`, { token: ADMIN_KEY, body: { name: "added_to_cart" } })).status).toBe(201);
      // After the first batch is answered the session is a known viewer, so the custom event is attributed (200, not 202).
      await until(() => real.statuses.length > 0, 5000);
      await p.evaluate(() => window.Frameline!.track("added_to_cart", { value: 19.5, plan: "pro" }));
      await until(() => real.tracks.length === 1, 5000);
      await p.close({ runBeforeUnload: true });
      await until(() => real.collects.some((b) => b.events.some((e) => e.type === "pause")), 5000);
      await until(() => real.statuses.length >= real.collects.length + real.tracks.length, 5000);
      // Every batch and the custom event accepted (200 attributed; the session is known by then).
      expect(real.statuses).toEqual(real.statuses.map(() => 200));

      const rows = (await t.deps.ch
        .query({
          query: "SELECT event_type, video_code, watch_seconds FROM events WHERE workspace_id = {w:UInt64} AND session_code = {s:String}",
          query_params: { w: w.id, s: session },
          format: "JSONEachRow",
        })
        .then((r) => r.json())) as { event_type: string; video_code: string; watch_seconds: number }[];
      const stored = new Set(rows.map((r) => r.event_type));
      for (const type of ["play", "startup", "watched", "pause", "custom"]) expect(stored.has(type)).toBe(true);
      expect(rows.filter((r) => r.event_type !== "custom").every((r) => r.video_code === code)).toBe(true);
      const watched = rows.filter((r) => r.event_type === "watched").reduce((n, r) => n + Number(r.watch_seconds), 0);
      expect(watched).toBeGreaterThan(0);
    } finally {
      real.stop();
    }
  }, 60000);
});
