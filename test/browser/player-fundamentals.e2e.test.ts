/**
 * Player fundamentals in real headless Chromium, behind the embed snippet, on
 * real HLS streams made by ffmpeg: the keyboard map, the progress bar as a
 * slider with its aria values, named buttons and focus rings, the menus
 * (speed, quality, captions, chapters), picture in picture, the rendition
 * switch when the viewport turns portrait, and the error overlay with retry.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import type { PlayerConfig } from "../../player/types.ts";
import { axeProblems } from "../helpers/axe.ts";
import { buildCore, launchBrowser, makeHlsStream, serve, tempDir, until, type LocalServer, testVideo, publishEntry } from "../helpers/browser.ts";

const MAIN = "3c0ffee0-7f0e-4c55-9d7b-aaaaaaaaaaaa";
const TURN = "3c0ffee0-7f0e-4c55-9d7b-bbbbbbbbbbbb";
const BROKEN = "3c0ffee0-7f0e-4c55-9d7b-cccccccccccc";
const NO_PIP = "3c0ffee0-7f0e-4c55-9d7b-dddddddddddd";

let dir: string;
let browser: Browser;
let server: LocalServer;
let coreUrl: string;

function config(code: string, settings: PlayerConfig["settings"] = {}, video: Partial<PlayerConfig["video"]> = {}): PlayerConfig {
  const media = `${server.url}/media/`;
  return {
    video: testVideo(code, media, {
      title: "Fundamentals",
      landscape: { hls: media + "master.m3u8", poster: media + "land/poster.jpg", w: 640, h: 360 },
      ...video,
    }),
    settings: {
      playback_options: { hls_engine: "hlsjs" },
      continue_watching_options: { enabled: false },
      engagement_options: { heartbeat_s: 2 },
      ...settings,
    },
    playlist: null,
    events_url: server.url,
  };
}

const publish = (cfg: PlayerConfig) => publishEntry(server, cfg, coreUrl);

const time = (p: Page) => p.evaluate(() => document.querySelector("video")!.currentTime);

beforeAll(async () => {
  dir = tempDir();
  const [, , , build, b] = await Promise.all([
    makeHlsStream(join(dir, "media/land"), 6, "640x360"),
    makeHlsStream(join(dir, "media/low"), 6, "320x180"),
    makeHlsStream(join(dir, "media/port"), 6, "360x640"),
    buildCore(join(dir, "p")),
    launchBrowser(),
  ]);
  browser = b;
  await Bun.write(join(dir, "media/en.vtt"), "WEBVTT\n\n00:00.000 --> 00:06.000\nHello captions\n");
  await Bun.write(join(dir, "media/fr.vtt"), "WEBVTT\n\n00:00.000 --> 00:06.000\nBonjour\n");
  await Bun.write(
    join(dir, "media/master.m3u8"),
    "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=640x360\nland/index.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=320x180\nlow/index.m3u8\n",
  );
  server = serve({ "/media/": join(dir, "media"), "/cdn/p/": join(dir, "p") });
  coreUrl = `${server.url}/cdn/p/${build.core}`;
});

afterAll(async () => {
  await browser?.close();
  server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("player fundamentals in Chromium", () => {
  test("keyboard map, the progress bar as a slider with aria values, named buttons, focus rings, default speed", async () => {
    const url = await publish(
      config(MAIN, {
        speed_options: { speeds: [0.5, 1, 1.5, 2], default_speed: 1.5 },
        captions_options: { enabled: true, tracks: [{ src: `${server.url}/media/en.vtt`, srclang: "en", label: "English" }] },
      }),
    );
    const p = await browser.newPage({ viewport: { width: 900, height: 600 } });
    const errors: string[] = [];
    p.on("pageerror", (e) => errors.push(String(e)));
    await p.goto(url);
    const slider = p.locator(".fl-track");
    await slider.waitFor({ state: "attached" });
    expect(await slider.getAttribute("role")).toBe("slider");
    expect(await slider.getAttribute("aria-valuenow")).toBe("0");
    expect(await slider.getAttribute("aria-label")).toBe("Seek");

    // Every button in the player has a name.
    const unnamed = await p.evaluate(() =>
      [...document.querySelectorAll(".fl-root button")].filter((b) => !(b.getAttribute("aria-label") || b.textContent || "").trim()).map((b) => b.className),
    );
    expect(unnamed).toEqual([]);

    await p.focus(".fl-root");
    await p.keyboard.press("Space");
    await p.waitForFunction(() => document.querySelector("video")!.currentTime > 1.2, null, { timeout: 15000 });
    expect(await p.evaluate(() => document.querySelector("video")!.playbackRate)).toBe(1.5);
    expect(await p.locator(".fl-speed").getAttribute("aria-label")).toBe("Speed 1.5x");
    await p.keyboard.press("k");
    await p.waitForFunction(() => document.querySelector("video")!.paused);

    // Tenths: 5 → half of the 6 s video.
    await p.keyboard.press("5");
    await until(async () => Math.abs((await time(p)) - 3) < 0.3);
    await until(async () => (await slider.getAttribute("aria-valuenow")) === "3");
    expect(await slider.getAttribute("aria-valuemax")).toBe("6");
    expect(await slider.getAttribute("aria-valuetext")).toBe("0:03 of 0:06");
    await p.keyboard.press("ArrowLeft");
    await until(async () => (await time(p)) < 0.3);
    await p.keyboard.press("l");
    await until(async () => (await time(p)) > 5.5);
    await p.keyboard.press("j");
    await until(async () => (await time(p)) < 0.3);
    await p.keyboard.press("ArrowRight");
    await until(async () => Math.abs((await time(p)) - 5) < 0.3);

    // Volume and mute.
    await p.keyboard.press("ArrowDown");
    expect(await p.evaluate(() => document.querySelector("video")!.volume)).toBeCloseTo(0.9, 5);
    await p.keyboard.press("m");
    expect(await p.evaluate(() => document.querySelector("video")!.muted)).toBe(true);
    await until(async () => (await p.locator(".fl-mute").getAttribute("aria-label")) === "Unmute");
    await p.keyboard.press("m");
    expect(await p.evaluate(() => document.querySelector("video")!.muted)).toBe(false);

    // C toggles captions.
    const showing = () => p.evaluate(() => document.querySelector("video")!.textTracks[0]!.mode);
    expect(await showing()).toBe("disabled");
    await p.keyboard.press("c");
    expect(await showing()).toBe("showing");

    // The slider itself: Home / End, and a visible focus ring when reached by Tab.
    await p.focus(".fl-root");
    for (let i = 0; i < 3 && (await p.evaluate(() => document.activeElement?.className)) !== "fl-track"; i++) await p.keyboard.press("Tab");
    expect(await p.evaluate(() => document.activeElement?.className)).toBe("fl-track");
    const ring = await p.evaluate(() => {
      const s = getComputedStyle(document.activeElement!);
      return { style: s.outlineStyle, width: s.outlineWidth };
    });
    expect(ring).toEqual({ style: "solid", width: "2px" });
    await p.keyboard.press("Home");
    await until(async () => (await time(p)) < 0.3);
    await p.keyboard.press("End");
    await until(async () => (await time(p)) > 5.5);
    expect(errors).toEqual([]);
    await p.close();
  }, 60000);

  test("menus by keyboard and pointer: speed, quality (Auto and each rendition), captions language and size, chapters; picture in picture", async () => {
    const url = await publish(
      config(MAIN, {
        speed_options: { speeds: [0.5, 1, 2], default_speed: 1 },
        controls_options: { pip: true },
        captions_options: {
          enabled: true,
          font_size: "large",
          tracks: [
            { src: `${server.url}/media/en.vtt`, srclang: "en", label: "English" },
            { src: `${server.url}/media/fr.vtt`, srclang: "fr", label: "Français" },
          ],
        },
        chapters_options: {
          enabled: true,
          chapters: [
            { time_s: 0, title: "Intro" },
            { time_s: 4, title: "Offer" },
          ],
        },
        cta_cards_options: { enabled: true, cards: [{ time_s: 3.5, text: "Limited offer", button_text: "Buy now", url: "https://example.com/buy" }] },
        style_options: { main_color: "#fde047", text_color: "#facc15", background_color: "#111111" },
      }),
    );
    const p = await browser.newPage({ viewport: { width: 900, height: 600 } });
    await p.goto(url);
    await p.waitForSelector(".fl-speed");
    // A pale text colour on a pale main colour: the big button's glyph falls back to black; icons on the dark row keep the colour.
    const theme = await p.evaluate(() => {
      const s = getComputedStyle(document.querySelector(".frameline-player")!);
      return { icon: s.getPropertyValue("--fl-icon").trim(), onMain: s.getPropertyValue("--fl-on-main").trim() };
    });
    expect(theme).toEqual({ icon: "#facc15", onMain: "#000" });
    expect(await axeProblems(p, ".frameline-player")).toEqual([]);
    const items = () =>
      p.evaluate(() =>
        [...document.querySelectorAll(".fl-menu [role=menuitemradio]")].map((b) => b.textContent + (b.getAttribute("aria-checked") === "true" ? "*" : "")),
      );

    // Picture in picture follows the browser's support.
    const pip = await p.evaluate(() => document.pictureInPictureEnabled);
    expect(await p.locator(".fl-pip").count()).toBe(pip ? 1 : 0);
    if (pip) expect(await p.locator(".fl-pip").getAttribute("aria-label")).toBe("Picture in picture");

    // Speed by keyboard: Enter opens, arrows move, Enter picks, focus returns; Esc closes.
    await p.focus(".fl-speed");
    await p.keyboard.press("Enter");
    expect(await p.locator(".fl-menu").getAttribute("role")).toBe("menu");
    expect(await p.locator(".fl-speed").getAttribute("aria-expanded")).toBe("true");
    expect(await items()).toEqual(["0.5x", "1x*", "2x"]);
    await p.keyboard.press("ArrowDown");
    await p.keyboard.press("Enter");
    expect(await p.evaluate(() => document.querySelector("video")!.playbackRate)).toBe(2);
    expect(await p.locator(".fl-menu").count()).toBe(0);
    expect(await p.evaluate(() => document.activeElement?.classList.contains("fl-speed"))).toBe(true);
    await p.keyboard.press("Enter");
    expect(await items()).toEqual(["0.5x", "1x", "2x*"]);
    await p.keyboard.press("Escape");
    expect(await p.locator(".fl-menu").count()).toBe(0);

    // Captions: language and size (captions_options.font_size large is the default choice).
    await p.click(".fl-gear");
    expect(await items()).toEqual(["Off*", "English", "Français", "Size: small", "Size: medium", "Size: large*"]);
    await p.click(".fl-menu >> text=Français");
    expect(await p.evaluate(() => [...document.querySelector("video")!.textTracks].map((t) => t.mode))).toEqual(["disabled", "showing"]);
    await p.click(".fl-gear");
    await p.click(".fl-menu >> text=Size: small");
    await p.click(".fl-gear");
    expect(await items()).toEqual(["Off", "English", "Français*", "Size: small*", "Size: medium", "Size: large"]);
    await p.keyboard.press("Escape");

    // Quality appears once hls.js has the renditions; picking 180p plays the low rendition.
    await p.click(".fl-big");
    await p.waitForSelector(".fl-q", { timeout: 15000 });
    await p.click(".fl-q");
    expect(await items()).toEqual(["Auto*", "360p", "180p"]);
    await p.click(".fl-menu >> text=180p");
    await p.waitForFunction(() => document.querySelector("video")!.videoHeight === 180, null, { timeout: 15000 });
    await p.click(".fl-q");
    expect(await items()).toEqual(["Auto", "360p", "180p*"]);
    await p.keyboard.press("Escape");

    // Chapters as a list that seeks.
    await p.click(".fl-chm");
    expect((await items()).map((s) => s.replace("*", ""))).toEqual(["Intro", "Offer"]);
    await p.click(".fl-menu >> text=Offer");
    await until(async () => (await time(p)) >= 3.9);

    // axe-core on the player: playing, with a menu open, and with the CTA card and its announcement.
    await p.click(".fl-speed");
    expect(await axeProblems(p, ".frameline-player")).toEqual([]);
    await p.keyboard.press("Escape");
    await p.waitForSelector(".fl-cta");
    await until(async () => (await p.locator(".fl-sr").textContent()) === "Limited offer. Buy now");
    expect(await p.locator(".fl-sr").getAttribute("aria-live")).toBe("polite");
    expect(await axeProblems(p, ".frameline-player")).toEqual([]);
    await p.close();

    // Without controls_options.pip there is no button; branding_options puts the logo up, as a link.
    const plain = await publish(
      config(NO_PIP, { branding_options: { show_logo: true, logo_url: `${server.url}/media/land/poster.jpg`, logo_link: "https://example.com/about" } }),
    );
    const q = await browser.newPage();
    await q.goto(plain);
    await q.waitForSelector(".fl-mute");
    expect(await q.locator(".fl-pip").count()).toBe(0);
    expect(await q.locator("a.fl-logo").getAttribute("href")).toBe("https://example.com/about");
    expect(await q.locator(".fl-logo img").getAttribute("alt")).toBe("Visit example.com");
    expect(await axeProblems(q, ".frameline-player")).toEqual([]);
    await q.close();
  }, 60000);

  test("touch: 44 px targets, double tap on the sides seeks 10 s, iOS-style fullscreen falls back to webkitEnterFullscreen", async () => {
    const url = await publish(config(NO_PIP));
    const ctx = await browser.newContext({ viewport: { width: 400, height: 700 }, hasTouch: true, isMobile: true });
    const p = await ctx.newPage();
    await p.goto(url);
    await p.waitForSelector(".fl-mute");
    expect(await p.evaluate(() => matchMedia("(pointer: coarse)").matches)).toBe(true);
    const sizes = await p.evaluate(() => [...document.querySelectorAll(".fl-controls .fl-btn")].map((b) => Math.min(b.clientWidth, b.clientHeight)));
    expect(sizes.length).toBeGreaterThan(1);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(44);
    expect(await p.evaluate(() => document.querySelector("video")!.playsInline)).toBe(true);
    await p.tap(".fl-big");
    await p.waitForFunction(() => document.querySelector("video")!.currentTime > 1, null, { timeout: 15000 });
    const box = (await p.locator("video").boundingBox())!;
    const y = box.y + box.height / 2;
    await p.evaluate(() => (document.querySelector("video")!.currentTime = 5));
    await p.touchscreen.tap(box.x + box.width * 0.15, y);
    await p.touchscreen.tap(box.x + box.width * 0.15, y);
    await until(async () => (await time(p)) < 1);

    // Without the Fullscreen API on elements (iPhone), the button uses the video's own fullscreen.
    const used = await p.evaluate(() => {
      const v = document.querySelector("video") as HTMLVideoElement & { webkitEnterFullscreen?: () => void };
      let called = false;
      v.webkitEnterFullscreen = () => (called = true);
      Object.defineProperty(document.querySelector(".fl-root")!, "requestFullscreen", { value: undefined });
      (document.querySelector(".fl-fs") as HTMLButtonElement).click();
      return called;
    });
    expect(used).toBe(true);
    await ctx.close();
  }, 60000);

  test("a portrait viewport switches to the portrait rendition, keeping position and play state", async () => {
    const media = `${server.url}/media/`;
    const url = await publish(
      config(
        TURN,
        {},
        {
          landscape: { hls: media + "land/index.m3u8", poster: media + "land/poster.jpg", w: 640, h: 360 },
          portrait: { hls: media + "port/index.m3u8", poster: media + "port/poster.jpg", w: 360, h: 640 },
        },
      ),
    );
    const p = await browser.newPage({ viewport: { width: 700, height: 500 } });
    await p.goto(url);
    await p.waitForSelector(".fl-root.fl-landscape");
    await p.click(".fl-big");
    await p.waitForFunction(() => document.querySelector("video")!.currentTime > 1.5, null, { timeout: 15000 });
    expect(await p.evaluate(() => document.querySelector("video")!.videoHeight)).toBe(360);
    const before = await time(p);
    await p.setViewportSize({ width: 400, height: 760 });
    await p.waitForSelector(".fl-root.fl-portrait", { timeout: 5000 });
    await p.waitForFunction(() => document.querySelector("video")!.videoHeight === 640, null, { timeout: 15000 });
    await p.waitForFunction((t) => document.querySelector("video")!.currentTime > t, before, { timeout: 15000 });
    expect(await p.evaluate(() => document.querySelector("video")!.paused)).toBe(false);
    const box = (await p.locator(".fl-root").boundingBox())!;
    expect(box.height).toBeGreaterThan(box.width);
    await p.close();
  }, 60000);

  test("instant start: a pointer over the player fetches hls.js and the manifest, no segment before the click; preload none fetches no manifest", async () => {
    const url = await publish(config(TURN, {}, { landscape: { hls: `${server.url}/media/land/index.m3u8?warm`, poster: null, w: 640, h: 360 } }));
    const p = await browser.newPage();
    // The page on another origin than the media: the player preconnects to the media's (CORS, as hls.js fetches).
    await p.goto(url.replace("127.0.0.1", "localhost"));
    await p.waitForSelector(".fl-big");
    expect(await p.evaluate(() => [...document.querySelectorAll<HTMLLinkElement>("link[rel=preconnect]")].map((l) => [l.href, l.crossOrigin]))).toEqual([
      [server.url + "/", "anonymous"],
    ]);
    server.requests.length = 0;
    await p.hover(".fl-root");
    await until(() => server.requests.includes("/media/land/index.m3u8"));
    await Bun.sleep(500);
    expect(server.requests.some((r) => r.endsWith(".ts"))).toBe(false);
    await p.click(".fl-big");
    await p.waitForFunction(() => document.querySelector("video")!.currentTime > 0.5, null, { timeout: 15000 });
    expect(server.requests.filter((r) => r === "/media/land/index.m3u8")).toHaveLength(1);
    await p.close();

    const none = await publish(config(NO_PIP, { playback_options: { hls_engine: "hlsjs", preload: "none" } }));
    const q = await browser.newPage();
    await q.goto(none);
    await q.waitForSelector(".fl-big");
    await Bun.sleep(500);
    server.requests.length = 0;
    await q.hover(".fl-root");
    await Bun.sleep(500);
    expect(server.requests.some((r) => r.includes(".m3u8"))).toBe(false);
    await q.close();

    // preload "auto": the start of the stream is attached once the page is idle, before any gesture.
    const auto = await publish(config(MAIN, { playback_options: { hls_engine: "hlsjs", preload: "auto" } }));
    server.requests.length = 0;
    const r = await browser.newPage();
    await r.goto(auto);
    await until(() => server.requests.some((x) => x.endsWith(".ts")), 10000);
    expect(await r.evaluate(() => document.querySelector("video")!.paused)).toBe(true);
    await r.click(".fl-big");
    await r.waitForFunction(() => document.querySelector("video")!.currentTime > 0.5, null, { timeout: 15000 });
    await r.close();
  }, 60000);

  test("a broken stream shows a message with Retry, reports the error once, never throws into the page", async () => {
    const url = await publish(config(BROKEN, {}, { landscape: { hls: `${server.url}/media/missing.m3u8`, poster: null, w: 640, h: 360 } }));
    const p = await browser.newPage();
    const errors: string[] = [];
    p.on("pageerror", (e) => errors.push(String(e)));
    await p.goto(url);
    await p.click(".fl-big");
    const alert = p.locator(".fl-err[role=alert]");
    await alert.waitFor({ timeout: 15000 });
    expect(await alert.textContent()).toContain("could not load");
    expect(await axeProblems(p, ".frameline-player")).toEqual([]);
    const fatal = () =>
      server.collects
        .filter((b) => b.video_code === BROKEN)
        .flatMap((b) => b.events)
        .filter((e) => e.type === "error" && e.fatal === true);
    await until(() => fatal().length > 0, 10000);
    await Bun.sleep(2500);
    expect(fatal()).toHaveLength(1);
    expect(fatal()[0]).toMatchObject({ error_type: "network", details: "manifestLoadError" });

    // Retry loads again (the stream is still missing: the message comes back, reported once more).
    const asked = () => server.requests.filter((r) => r.endsWith("/missing.m3u8")).length;
    const before = asked();
    await p.evaluate(() => ((window as any).__errBefore = document.querySelector(".fl-err")));
    await p.click(".fl-err >> text=Retry");
    await until(() => asked() > before, 10000);
    await p.waitForFunction(() => document.querySelector(".fl-err") && document.querySelector(".fl-err") !== (window as any).__errBefore, null, {
      timeout: 15000,
    });
    await until(() => fatal().length === 2, 10000);
    expect(errors).toEqual([]);
    await p.close();
  }, 60000);
});
