import { describe, expect, test } from "bun:test";
import { fakePlayer, useDom } from "../../../test/helpers/player-dom.ts";
import { held, hold, pausedByPlayer, pauseForPlayer } from "./style.ts";

useDom();

/** A player playing, whose `video.pause()` and `play()` a test can see. */
function playing() {
  const p = fakePlayer();
  p.media({ paused: false });
  const pauses: number[] = [];
  p.video.pause = () => {
    pauses.push(p.video.currentTime);
    p.media({ paused: true }, "pause");
  };
  return { p, pauses };
}

describe("holds on playback", () => {
  test("a hold pauses and undoes a play asked meanwhile; its release resumes only when no other hold is left", () => {
    const { p, pauses } = playing();
    const lead = hold(p);
    const quiz = hold(p);
    expect([held(p), pauses.length]).toEqual([2, 1]);
    p.media({ paused: false }, "play");
    expect(pauses.length).toBe(2);
    lead(true);
    expect([held(p), p.intents]).toEqual([1, []]);
    quiz(true);
    quiz(true);
    expect([held(p), p.intents]).toEqual([0, [false]]);
  });

  test("the player's own pause is told apart from the viewer's, once", () => {
    const { p } = playing();
    pauseForPlayer(p);
    expect(pausedByPlayer(p)).toBe(true);
    expect(pausedByPlayer(p)).toBe(false);
    // Already paused: no pause event comes, so none is marked.
    pauseForPlayer(p);
    expect(pausedByPlayer(p)).toBe(false);
  });
});
