import { describe, expect, test } from "bun:test";
import { fakePlayer, useDom } from "../../test/helpers/player-dom.ts";
import { stepVolume, toggleMute } from "./volume.ts";

useDom();

describe("volume", () => {
  test("steps by tenths within 0..1, unmutes on the way up only, and says the new volume", () => {
    const { video } = fakePlayer();
    const said: string[] = [];
    const say = (t: string) => said.push(t);
    video.volume = 0.5;
    video.muted = true;
    stepVolume(video, false, say);
    expect([video.volume, video.muted]).toEqual([0.4, true]);
    stepVolume(video, true, say);
    expect([video.volume, video.muted]).toEqual([0.5, false]);
    video.volume = 0.95;
    stepVolume(video, true, say);
    expect(video.volume).toBe(1);
    video.volume = 0.04;
    stepVolume(video, false, say);
    expect(video.volume).toBe(0);
    expect(said).toEqual(["Volume 40%", "Volume 50%", "Volume 100%", "Volume 0%"]);
  });

  test("toggleMute flips muted and leaves the volume", () => {
    const { video } = fakePlayer();
    video.volume = 0.3;
    toggleMute(video);
    expect([video.muted, video.volume]).toEqual([true, 0.3]);
    toggleMute(video);
    expect(video.muted).toBe(false);
  });
});
