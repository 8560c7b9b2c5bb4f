import { describe, expect, test } from "bun:test";
import { fakePlayer, useDom } from "../../../test/helpers/player-dom.ts";
import { RANK_CTA, RANK_END } from "../../overlay-ranks.ts";
import { el, held, hold, overlaySlot, pausedByPlayer, pauseForPlayer } from "./style.ts";

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

describe("overlaySlot", () => {
  test("shows one element at a time on the stage; hide removes it and gives the stage back to the one waiting", () => {
    const p = fakePlayer();
    const slot = overlaySlot(p);
    const first = el("div", "first", p.layer);
    slot.show(first, RANK_END, { say: "The end" });
    expect(p.announced).toEqual(["The end"]);
    const second = el("div", "second", p.layer);
    slot.show(second, RANK_END);
    expect([first.isConnected, second.isConnected]).toEqual([false, true]);
    const card = el("div", "card", p.layer);
    p.overlay(card, RANK_CTA);
    expect(card.classList.contains("fl-wait")).toBe(true);
    slot.hide();
    expect([second.isConnected, card.classList.contains("fl-wait")]).toEqual([false, false]);
    slot.hide();
    expect(card.isConnected).toBe(true);
  });
});
