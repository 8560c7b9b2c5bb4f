import { describe, expect, test } from "bun:test";
import type { Collector } from "../collector.ts";
import { type FakePlayer, fakePlayer, useDom } from "../../test/helpers/player-dom.ts";
import { milestones } from "../milestones.ts";
import { AnalyticsController } from "./analytics-controller.ts";

useDom();

type Sent = { type: string; video_time: number; [field: string]: unknown };

/** Stands in for the Collector: what would go into the `/v1/collect` batches, per video code. */
function fakeCollector() {
  const sent: Sent[] = [];
  const collector = {
    videoCode: "vid-1",
    codes: [] as string[],
    beforeFlush: () => {},
    push(type: string, videoTime: number, fields?: Record<string, unknown>) {
      sent.push({ type, video_time: Math.round(videoTime * 10) / 10, ...fields });
    },
    switchVideo(code: string) {
      collector.videoCode = code;
      collector.codes.push(code);
    },
    /** A heartbeat: the collector lets the open range close before each flush. */
    flush() {
      collector.beforeFlush();
    },
  };
  return { collector, sent };
}

function setup(duration = 100) {
  const p = fakePlayer();
  const { collector, sent } = fakeCollector();
  // As the Player wires them: the milestones first, so the end's comes before `ended`.
  milestones(p);
  const analytics = new AnalyticsController(p, collector as unknown as Collector);
  p.media({ duration });
  const types = () => sent.map((e) => e.type);
  const of = (type: string) => sent.filter((e) => e.type === type);
  return { p, collector, sent, analytics, types, of };
}

/** Playback reaching `to` seconds, as the browser reports it. */
const playTo = (p: FakePlayer, ...times: number[]) => {
  for (const t of times) p.media({ currentTime: t }, "timeupdate");
};

/** A viewer's start: intent, then the video plays from where it is. */
const start = (p: FakePlayer, auto = false) => {
  p.emit("intent", { auto });
  p.media({ paused: false }, "play", "playing");
};

describe("analytics controller", () => {
  test("a load once, with the page and the session's landing context", () => {
    const { sent } = setup();
    expect(sent).toEqual([{ type: "load", video_time: 0, page_host: "shop.example", page_path: "/watch" }]);
  });

  test("a viewer's start is a play; pause closes the watched range, with the video's duration", () => {
    const { p, sent } = setup(120);
    start(p);
    playTo(p, 5, 10, 20.04);
    p.media({ paused: true }, "pause");
    expect(sent.slice(1)).toEqual([
      { type: "play", video_time: 0 },
      { type: "watched", video_time: 20, from_s: 0, to_s: 20, duration_s: 120 },
      { type: "pause", video_time: 20 },
    ]);
  });

  test("a muted autoplay is not a play; unmuting it is, once", () => {
    const { p, types } = setup();
    p.video.muted = true;
    start(p, true);
    p.media({}, "volumechange");
    p.media({ muted: false }, "volumechange");
    p.media({ muted: true }, "volumechange");
    p.media({ muted: false }, "volumechange");
    expect(types().slice(1)).toEqual(["autoplay", "unmute"]);
  });

  test("an autoplay intent followed by a gesture in the player, or an unmuted autoplay, is a play", () => {
    const gesture = setup();
    gesture.p.video.muted = true;
    gesture.p.emit("intent", { auto: true });
    gesture.p.fire(gesture.p.root, "pointerdown", {}, "PointerEvent");
    gesture.p.media({ paused: false }, "play");
    const sound = setup();
    start(sound.p, true);
    expect([gesture.types().slice(1), sound.types().slice(1)]).toEqual([["play"], ["play"]]);
  });

  test("milestones 25, 50 and 75 are crossed by playback only, each once; ended adds 100", () => {
    const { p, of, types } = setup(100);
    start(p);
    playTo(p, 10, 24.9);
    expect(of("milestone")).toEqual([]);
    playTo(p, 25, 30, 55);
    expect(of("milestone").map((m) => m.percent)).toEqual([25, 50]);
    // A seek past 75 % is not "watched 75 %", nor is playing on from there.
    p.media({ currentTime: 80, seeking: true }, "seeking", "timeupdate");
    p.media({ seeking: false }, "seeked");
    playTo(p, 85, 99);
    // Going back and crossing 50 % again counts nothing new.
    p.media({ currentTime: 40, seeking: true }, "seeking");
    p.media({ seeking: false }, "seeked");
    playTo(p, 45, 60);
    expect(of("milestone").map((m) => m.percent)).toEqual([25, 50]);
    p.media({ currentTime: 100, ended: true, paused: true }, "pause", "ended");
    expect(of("milestone").map((m) => m.percent)).toEqual([25, 50, 100]);
    expect(types().slice(-3)).toEqual(["watched", "milestone", "ended"]);
    expect(types()).not.toContain("pause");
  });

  test("a seek says where from and where to, and splits the watched ranges there", () => {
    const { p, of } = setup(100);
    start(p);
    playTo(p, 10, 20);
    p.media({ currentTime: 60, seeking: true }, "seeking");
    p.media({ seeking: false }, "seeked");
    playTo(p, 65, 70);
    p.media({ paused: true }, "pause");
    expect(of("seek")).toEqual([{ type: "seek", video_time: 60, from: 20, to: 60 }]);
    expect(of("watched").map((w) => [w.from_s, w.to_s])).toEqual([
      [0, 20],
      [60, 70],
    ]);
  });

  test("each heartbeat flush closes the range so far and keeps measuring", () => {
    const { p, collector, of } = setup(100);
    start(p);
    playTo(p, 15);
    collector.flush();
    playTo(p, 30);
    collector.flush();
    playTo(p, 33);
    p.media({ paused: true }, "pause");
    collector.flush();
    expect(of("watched").map((w) => [w.from_s, w.to_s])).toEqual([
      [0, 15],
      [15, 30],
      [30, 33],
    ]);
  });

  test("bus events: collect, startup and errors (their type as error_type)", () => {
    const { p, sent } = setup();
    p.media({ currentTime: 12 });
    p.collect("cta_click", { card_index: 0, url: "https://example.com/buy" });
    p.emit("started", { ms: 840 });
    p.emit("error", { type: "network", details: "fragLoadError", fatal: false, error: new Error("not sent") });
    expect(sent.slice(1)).toEqual([
      { type: "cta_click", video_time: 12, card_index: 0, url: "https://example.com/buy" },
      { type: "startup", video_time: 12, ms: 840 },
      { type: "error", video_time: 12, error_type: "network", details: "fragLoadError", fatal: false },
    ]);
  });

  test("a new source closes the range, batches under its code, and counts its milestones afresh", () => {
    const { p, collector, of } = setup(100);
    start(p);
    playTo(p, 30);
    p.load({ code: "vid-2", title: "", hls: null, poster: null });
    expect(collector.codes).toEqual(["vid-2"]);
    expect(of("watched").map((w) => [w.from_s, w.to_s])).toEqual([[0, 30]]);
    p.media({ currentTime: 0, paused: true });
    start(p);
    playTo(p, 10, 30);
    expect(of("milestone").map((m) => m.percent)).toEqual([25, 25]);
  });

  test("destroy closes the open range and sends nothing more", () => {
    const { p, analytics, sent, of } = setup(100);
    start(p);
    playTo(p, 8);
    analytics.destroy();
    expect(of("watched").map((w) => [w.from_s, w.to_s])).toEqual([[0, 8]]);
    const n = sent.length;
    p.media({ paused: true }, "pause");
    playTo(p, 50);
    p.emit("error", { type: "media", details: "mediaDecodeError", fatal: true });
    expect(sent.length).toBe(n);
  });
});
