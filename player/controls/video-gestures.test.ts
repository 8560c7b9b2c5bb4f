import { describe, expect, test } from "bun:test";
import { type FakePlayer, fakePlayer, layout, useDom } from "../../test/helpers/player-dom.ts";
import { videoGestures } from "./video-gestures.ts";

const dom = useDom();

/** A pointerup on the video at `x` (of a 300 px wide video), at `at` ms. */
function tap(p: FakePlayer, x: number, at: number, pointerType = "touch") {
  const e = new dom.window.PointerEvent("pointerup", { pointerType, clientX: x, bubbles: true });
  Object.defineProperty(e, "timeStamp", { value: at });
  p.video.dispatchEvent(e as unknown as Event);
}

function setup(plain = false) {
  const p = fakePlayer({}, { plain });
  videoGestures(p);
  layout(p.video, 0, 300);
  p.media({ duration: 120, currentTime: 60, readyState: 1 });
  return p;
}

describe("gestures on the picture", () => {
  test("a click plays and pauses, except in plain mode (the browser's controls)", () => {
    const p = setup();
    p.video.click();
    expect(p.intents).toEqual([false]);
    p.video.click();
    expect(p.video.paused).toBe(true);
    const plain = setup(true);
    plain.video.click();
    expect(plain.intents).toEqual([]);
  });

  test("a double tap on the left third seeks back 10 s, on the right third forward; the middle and slow taps do nothing", () => {
    const p = setup();
    tap(p, 50, 1000);
    tap(p, 50, 1200);
    p.media({ currentTime: 60 });
    tap(p, 280, 2000);
    tap(p, 280, 2250);
    tap(p, 150, 3000);
    tap(p, 150, 3100);
    tap(p, 50, 4000);
    tap(p, 50, 4400);
    expect(p.events("seek")).toEqual([{ to: 50 }, { to: 70 }]);
  });

  test("a mouse double click is not a double tap", () => {
    const p = setup();
    tap(p, 50, 1000, "mouse");
    tap(p, 50, 1100, "mouse");
    expect(p.events("seek")).toEqual([]);
  });
});
