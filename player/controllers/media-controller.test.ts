import { describe, expect, test } from "bun:test";
import type { PlayerSettings, Source } from "../types.ts";
import { fakePlayer, sleep, useDom } from "../../test/helpers/player-dom.ts";
import { MediaController, needsHlsJs } from "./media-controller.ts";

useDom();

const STREAM = "https://cdn.example/m/vid-1/index.m3u8";

/** A player whose play intents go to a MediaController, as the Player's do; the first source attached. */
function setup(settings: PlayerSettings = {}, source: Partial<Source> = {}) {
  const p = fakePlayer(settings, { source });
  const media = new MediaController(p);
  p.play = (auto = false) => media.intent(auto);
  p.emit("source", p.source);
  return { p, media };
}

/** A rejection of `video.play()` as the browser gives it. */
const refuse = (name: string) => () => Promise.reject(Object.assign(new Error(name), { name }));

/** The page has loaded, and a turn has passed for idle work. */
async function idle() {
  while (document.readyState !== "complete") await sleep(1);
  await sleep(5);
}

describe("needsHlsJs", () => {
  test("only for HLS where Media Source exists and the browser cannot play HLS itself, unless the engine is forced", () => {
    const video = document.createElement("video");
    expect(needsHlsJs(video, STREAM, undefined)).toBe(false);
    Object.assign(window, { MediaSource: class {} });
    expect(needsHlsJs(video, STREAM, undefined)).toBe(true);
    expect(needsHlsJs(video, STREAM + "?token=1", "auto")).toBe(true);
    expect(needsHlsJs(video, "https://cdn.example/clip.mp4", "hlsjs")).toBe(false);
    expect(needsHlsJs(video, STREAM, "native")).toBe(false);
    video.canPlayType = () => "maybe";
    expect(needsHlsJs(video, STREAM, undefined)).toBe(false);
    expect(needsHlsJs(video, STREAM, "hlsjs")).toBe(true);
  });
});

describe("media controller", () => {
  test("a source shows its poster and fetches no stream before the intent; the stream's origin is preconnected once", () => {
    const { p } = setup();
    expect(p.video.getAttribute("poster")).toBe("https://cdn.example/m/vid-1/poster.jpg");
    expect(p.video.hasAttribute("src")).toBe(false);
    p.emit("source", { code: "vid-2", title: "", hls: "https://cdn.example/m/vid-2/index.m3u8", poster: null });
    expect(p.video.hasAttribute("poster")).toBe(false);
    const links = document.head.querySelectorAll("link[rel=preconnect]");
    expect([...links].map((l) => [l.getAttribute("href"), l.hasAttribute("crossorigin")])).toEqual([["https://cdn.example", false]]);
    // A stream on the page's own origin needs none.
    const same = fakePlayer({}, { source: { hls: "https://shop.example/hls/index.m3u8" } });
    new MediaController(same);
    same.emit("source", same.source);
    expect(document.head.querySelectorAll("link[rel=preconnect]").length).toBe(1);
  });

  test("a play intent attaches the stream and plays; the first frame reports startup once", () => {
    const { p } = setup();
    p.play();
    expect(p.events("intent")).toEqual([{ auto: false }]);
    expect(p.video.getAttribute("src")).toBe(STREAM);
    expect(p.video.paused).toBe(false);
    const started = p.events("started");
    expect(started.length).toBe(1);
    expect(started[0].ms).toBeGreaterThanOrEqual(0);
    p.media({ paused: true }, "pause");
    p.play(true);
    expect(p.events("intent").length).toBe(1);
    expect(p.events("started").length).toBe(1);
  });

  test("a stall after the start is reported as rebuffer with its length; a stall while seeking is not", async () => {
    const { p } = setup();
    p.play();
    p.media({ seeking: true }, "waiting");
    p.media({ seeking: false }, "playing");
    expect(p.events("collect")).toEqual([]);
    p.media({}, "waiting");
    await sleep(40);
    p.media({}, "playing");
    const [rebuffer] = p.events("collect");
    expect(rebuffer.type).toBe("rebuffer");
    expect(rebuffer.fields!.ms as number).toBeGreaterThanOrEqual(35);
    // A seek in between ends the stall without a report.
    p.media({}, "waiting", "seeking", "playing");
    expect(p.events("collect").length).toBe(1);
  });

  test("playback starts at startAt (resume, start_time_s) once the metadata is there", () => {
    const { p } = setup();
    p.startAt = 42;
    p.play();
    p.media({ readyState: 1 }, "loadedmetadata");
    expect(p.video.currentTime).toBe(42);
  });

  test("a source without a stream yet: a fatal noStream error, and no intent", () => {
    const { p } = setup({}, { hls: null });
    p.play();
    expect(p.events("error")).toEqual([{ type: "other", details: "noStream", fatal: true }]);
    expect(p.events("intent")).toEqual([]);
  });

  test("a media error of the stream is a fatal error in the player's shape; the poster's own is not", () => {
    const { p } = setup();
    p.media({ error: 4 }, "error");
    expect(p.events("error")).toEqual([]);
    p.play();
    p.media({ error: 3 }, "error");
    p.media({ error: 2 }, "error");
    expect(p.events("error").map(({ type, details, fatal }) => ({ type, details, fatal }))).toEqual([
      { type: "media", details: "mediaDecodeError", fatal: true },
      { type: "network", details: "mediaNetworkError", fatal: true },
    ]);
  });

  test("Retry reloads the stream where playback stopped, as a new intent", () => {
    const { p } = setup();
    p.play();
    p.media({ currentTime: 63, error: 3 }, "error");
    const removed: string[] = [];
    p.video.addEventListener("emptied", () => removed.push(String(p.video.getAttribute("src"))));
    p.emit("retry", undefined);
    expect(removed).toEqual(["null"]);
    expect(p.startAt).toBe(63);
    expect(p.events("intent").length).toBe(2);
    expect(p.video.getAttribute("src")).toBe(STREAM);
    p.media({ currentTime: 0, readyState: 1 }, "loadedmetadata");
    expect(p.video.currentTime).toBe(63);
  });

  test("a refused autoplay is reported, not fatal; an aborted play is not reported", async () => {
    const { p } = setup();
    p.video.play = refuse("NotAllowedError");
    p.play(true);
    await sleep(0);
    expect(p.events("intent")).toEqual([{ auto: true }]);
    expect(p.events("error").map(({ type, details, fatal }) => ({ type, details, fatal }))).toEqual([
      { type: "other", details: "playNotAllowed", fatal: false },
    ]);
    const q = setup().p;
    q.video.play = refuse("AbortError");
    q.play();
    await sleep(0);
    expect(q.events("error")).toEqual([]);
  });

  test("a start by the browser's own controls or a script is a play intent too", () => {
    const { p } = setup({}, {});
    p.media({}, "play");
    expect(p.events("intent")).toEqual([{ auto: false }]);
    expect(p.video.getAttribute("src")).toBe(STREAM);
  });

  test("preload auto attaches the stream when the page is idle, without playing; the intent then plays at once", async () => {
    const { p } = setup({ playback_options: { preload: "auto" } });
    expect(p.video.hasAttribute("src")).toBe(false);
    await idle();
    expect([p.video.getAttribute("src"), p.video.preload, p.video.paused]).toEqual([STREAM, "auto", true]);
    expect(p.events("intent")).toEqual([]);
    p.play();
    expect(p.video.paused).toBe(false);
    expect(p.events("started").length).toBe(1);
  });

  test("preload none fetches nothing, even when the page is idle", async () => {
    const { p } = setup({ playback_options: { preload: "none" } });
    await idle();
    expect(p.video.hasAttribute("src")).toBe(false);
  });

  test("a feature asking for segments ahead (turbo) attaches the stream when idle under the default preload; preload none still wins", async () => {
    const ahead = fakePlayer({});
    const media = new MediaController(ahead);
    ahead.preloadSegments = 1;
    ahead.emit("source", ahead.source);
    const none = fakePlayer({ playback_options: { preload: "none" } });
    new MediaController(none);
    none.preloadSegments = 1;
    none.emit("source", none.source);
    await idle();
    expect([ahead.video.getAttribute("src"), ahead.video.paused, media.active]).toEqual([STREAM, true, false]);
    expect(none.video.hasAttribute("src")).toBe(false);
  });

  test("startup ends at the first frame presented after the intent, or, for a frame decoded ahead (under the poster), as playback begins", () => {
    const frames: (() => void)[] = [];
    const cold = setup();
    Object.assign(cold.p.video, { requestVideoFrameCallback: (cb: () => void) => frames.push(cb) });
    cold.p.play();
    expect(cold.p.events("started")).toEqual([]);
    frames[0]!();
    expect(cold.p.events("started").length).toBe(1);
    frames.length = 0;
    const ahead = setup();
    Object.assign(ahead.p.video, { requestVideoFrameCallback: (cb: () => void) => frames.push(cb) });
    ahead.p.media({ readyState: 4 });
    ahead.p.play();
    expect(ahead.p.events("started").length).toBe(1);
    expect(frames).toEqual([]);
  });

  test("a rendition switch (resume) reattaches without a new intent or startup", () => {
    const { p, media } = setup();
    p.play();
    expect(media.active).toBe(true);
    (p as { source: Source }).source = { ...p.source, hls: "https://cdn.example/m/vid-1/portrait.m3u8" };
    media.attach(p.source);
    media.resume(true);
    expect(p.video.getAttribute("src")).toBe("https://cdn.example/m/vid-1/portrait.m3u8");
    expect(p.events("intent").length).toBe(1);
    expect(p.events("started").length).toBe(1);
  });

  test("destroy detaches the stream and stops listening", () => {
    const { p, media } = setup();
    p.play();
    media.destroy();
    expect(p.video.hasAttribute("src")).toBe(false);
    p.emit("source", { ...p.source, poster: "https://cdn.example/other.jpg" });
    p.media({}, "play");
    expect(p.video.getAttribute("poster")).toBe("https://cdn.example/m/vid-1/poster.jpg");
    expect(p.events("intent").length).toBe(1);
  });
});
