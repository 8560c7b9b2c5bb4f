import { describe, expect, test } from "bun:test";
import { fakePlayer, useDom } from "../../test/helpers/player-dom.ts";
import { playButton } from "./play-button.ts";

useDom();

describe("play buttons", () => {
  test("the row's button asks to play, then reads Pause while playing and Play once paused or ended", () => {
    const p = fakePlayer();
    playButton(p, p.big);
    const b = p.controls!.querySelector<HTMLButtonElement>("button.fl-btn.fl-play")!;
    expect(b.getAttribute("aria-label")).toBe("Play");
    b.click();
    expect(p.intents).toEqual([false]);
    expect(b.getAttribute("aria-label")).toBe("Pause");
    expect(b.classList.contains("fl-on")).toBe(true);
    expect(p.root.classList.contains("fl-playing")).toBe(true);
    b.click();
    expect(p.video.paused).toBe(true);
    expect(p.intents).toEqual([false]);
    expect(b.getAttribute("aria-label")).toBe("Play");
    expect(p.root.classList.contains("fl-playing")).toBe(false);
    b.click();
    p.media({ ended: true }, "ended");
    expect(b.getAttribute("aria-label")).toBe("Play");
    expect(b.classList.contains("fl-on")).toBe(false);
    // An ended video plays again (from the start, the browser's rule) rather than pausing.
    b.click();
    expect(p.intents).toEqual([false, false, false]);
  });

  test("the big button plays; controls_options.play off removes only the row's button; show_play_button off hides the big one", () => {
    const p = fakePlayer({ controls_options: { play: false }, playback_options: { show_play_button: false } });
    playButton(p, p.big);
    expect(p.root.querySelector(".fl-play")).toBeNull();
    expect(p.big.hidden).toBe(true);
    p.big.click();
    expect(p.intents).toEqual([false]);
    expect(p.root.classList.contains("fl-playing")).toBe(true);
  });

  test("a play intent makes the player active until the next source; in plain mode it hands over to native controls", () => {
    const p = fakePlayer({}, { plain: true });
    playButton(p, p.big);
    expect(p.root.querySelector(".fl-play")).toBeNull();
    p.emit("intent", { auto: false });
    expect(p.root.classList.contains("fl-active")).toBe(true);
    expect(p.video.controls).toBe(true);
    p.emit("source", p.source);
    expect(p.root.classList.contains("fl-active")).toBe(false);
    expect(p.video.controls).toBe(false);
  });

  test("after teardown the button no longer follows the video", () => {
    const p = fakePlayer();
    const off = playButton(p, p.big);
    off();
    p.media({ paused: false }, "play");
    expect(p.root.querySelector(".fl-play")!.getAttribute("aria-label")).toBe("Play");
    expect(p.root.classList.contains("fl-playing")).toBe(false);
  });
});
