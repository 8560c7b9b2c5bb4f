import { describe, expect, test } from "bun:test";
import { planLadder } from "./ladder.ts";
import type { ProbeResult } from "./probe.ts";

const source = (width: number, height: number, extra: Partial<ProbeResult["video"]> = {}, audio: ProbeResult["audio"] = { codec: "aac" }): ProbeResult => ({
  durationS: 10,
  video: { codec: "h264", pixFmt: "yuv420p", width, height, displayWidth: width, displayHeight: height, rotation: 0, bitRate: 0, ...extra },
  audio,
});

const sizes = (p: ProbeResult) => planLadder(p).rungs.map((r) => `${r.name} ${r.width}x${r.height}${r.copy ? " copy" : ""}`);

describe("planLadder", () => {
  test("a 1080p H.264 source gets 360p, 720p and 1080p; the 1080p rung is the source repackaged", () => {
    expect(sizes(source(1920, 1080))).toEqual(["360p 640x360", "720p 1280x720", "1080p 1920x1080 copy"]);
  });

  test("never upscales: a 720p source stops at 720p", () => {
    expect(sizes(source(1280, 720))).toEqual(["360p 640x360", "720p 1280x720 copy"]);
  });

  test("a source between rungs gets its own size as the top rung", () => {
    expect(sizes(source(1024, 576))).toEqual(["360p 640x360", "576p 1024x576 copy"]);
  });

  test("a source under the lowest rung keeps its own (even) size", () => {
    expect(sizes(source(320, 180))).toEqual(["180p 320x180 copy"]);
    expect(planLadder(source(321, 181)).rungs.map((r) => [r.width, r.height])).toEqual([[322, 182]]);
  });

  test("portrait: rungs are named by the short side, the width", () => {
    expect(sizes(source(1080, 1920))).toEqual(["360p 360x640", "720p 720x1280", "1080p 1080x1920 copy"]);
  });

  test("a source that is not plain H.264 yuv420p, or is rotated, is re-encoded at every rung", () => {
    expect(planLadder(source(1280, 720, { codec: "hevc" })).rungs.every((r) => !r.copy)).toBe(true);
    expect(planLadder(source(1280, 720, { pixFmt: "yuv444p" })).rungs.every((r) => !r.copy)).toBe(true);
    expect(planLadder(source(720, 1280, { rotation: 90, width: 1280, height: 720, displayWidth: 720, displayHeight: 1280 })).rungs.every((r) => !r.copy)).toBe(
      true,
    );
  });

  test("audio: AAC is copied, anything else becomes AAC, none stays none; the display size is kept", () => {
    expect(planLadder(source(1280, 720)).audio).toBe("copy");
    expect(planLadder(source(1280, 720, {}, { codec: "opus" })).audio).toBe("aac");
    expect(planLadder(source(1280, 720, {}, null)).audio).toBeNull();
    expect(planLadder(source(1280, 720))).toMatchObject({ width: 1280, height: 720 });
  });

  test("a rung never costs more than its source: a smaller picture gets at most the source's bit rate scaled by its pixels^0.75", () => {
    // A 720p source of 430 kb/s (a screen recording, a still slide): the 360p rung gets 150 kb/s, not 700.
    expect(planLadder(source(1280, 720, { bitRate: 430_000 })).rungs.map((r) => [r.name, r.videoKbps])).toEqual([
      ["360p", 150],
      ["720p", 2800],
    ]);
    // A rich 1080p source keeps the usual targets, each under the source's.
    expect(planLadder(source(1920, 1080, { bitRate: 8_000_000 })).rungs.map((r) => r.videoKbps)).toEqual([700, 2800, 6000]);
    // Never under 64 kb/s.
    expect(planLadder(source(1280, 720, { bitRate: 50_000 })).rungs[0]!.videoKbps).toBe(64);
  });

  test("bitrates grow with the picture and stay within 400 to 6000 kb/s", () => {
    const kbps = planLadder(source(1920, 1080, { codec: "vp9" })).rungs.map((r) => r.videoKbps);
    expect(kbps).toEqual([...kbps].sort((a, b) => a - b));
    expect(kbps[1]).toBe(2800);
    for (const k of [...kbps, ...planLadder(source(128, 72)).rungs.map((r) => r.videoKbps)]) expect(k >= 400 && k <= 6000).toBe(true);
  });
});
