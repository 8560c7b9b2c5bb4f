import { describe, expect, test } from "bun:test";
import { type FakePlayer, fakePlayer, useDom } from "../test/helpers/player-dom.ts";
import { milestones } from "./milestones.ts";

useDom();

function setup(duration = 100) {
  const p = fakePlayer();
  milestones(p);
  p.media({ duration });
  return { p, heard: () => p.events("milestone").map((m) => m.percent) };
}

const playTo = (p: FakePlayer, ...times: number[]) => {
  for (const t of times) p.media({ currentTime: t }, "timeupdate");
};
const seek = (p: FakePlayer, to: number) => {
  p.media({ currentTime: to, seeking: true }, "seeking");
  p.media({ seeking: false }, "seeked");
};

describe("milestones of watched time", () => {
  test("25, 50 and 75 % when playback crosses them, each once; 100 at the end", () => {
    const { p, heard } = setup();
    p.emit("intent", { auto: false });
    playTo(p, 10, 24.9, 25, 49, 51);
    expect(heard()).toEqual([25, 50]);
    p.media({ currentTime: 100, ended: true }, "ended");
    expect(heard()).toEqual([25, 50, 100]);
  });

  test("a click on the progress bar at 90 % crosses nothing, nor does playing on from there", () => {
    const { p, heard } = setup(8);
    p.emit("intent", { auto: false });
    // 25 % of 8 s is watched.
    playTo(p, 1, 2, 2.6);
    seek(p, 7.2);
    playTo(p, 7.45, 7.7, 7.95);
    expect(heard()).toEqual([25]);
    // Back before 50 % and watched across it: that counts.
    seek(p, 3.5);
    playTo(p, 3.75, 4.1);
    expect(heard()).toEqual([25, 50]);
  });

  test("a resumed play starts where the viewer stopped: its first position crosses nothing", () => {
    const { p, heard } = setup(40);
    p.startAt = 16;
    p.emit("intent", { auto: false });
    // hls.js starts at startAt without a seek the page sees.
    playTo(p, 16, 16.25, 20.5);
    expect(heard()).toEqual([50]);
  });

  test("a new source counts afresh", () => {
    const { p, heard } = setup();
    p.emit("intent", { auto: false });
    playTo(p, 30);
    p.load({ code: "vid-2", title: "", hls: null, poster: null });
    p.media({ currentTime: 0 });
    p.emit("intent", { auto: false });
    playTo(p, 10, 30);
    expect(heard()).toEqual([25, 25]);
  });
});
