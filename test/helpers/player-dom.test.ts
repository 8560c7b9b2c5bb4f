import { describe, expect, test } from "bun:test";
import { fakePlayer, useDom } from "./player-dom.ts";

const bunFetch = globalThis.fetch;
const bunSetTimeout = globalThis.setTimeout;
const bunAddEventListener = globalThis.addEventListener;

describe("inside a test of a file that uses the DOM", () => {
  const dom = useDom();

  test("the page's globals are happy-dom's; fetch and timers stay Bun's", () => {
    expect(globalThis.document).toBe(dom.window.document as unknown as Document);
    expect(globalThis.location.href).toBe("https://shop.example/watch");
    expect(globalThis.fetch).toBe(bunFetch);
    expect(globalThis.setTimeout).toBe(bunSetTimeout);
  });

  test("each test gets a fresh page: nothing left from the one before", () => {
    expect(document.body.children.length).toBe(0);
    window.localStorage.setItem("k", "v");
    const p = fakePlayer();
    expect(document.querySelectorAll(".fl-root").length).toBe(1);
    p.media({ duration: 60, currentTime: 12, paused: false });
    expect([p.video.duration, p.video.currentTime, p.video.paused]).toEqual([60, 12, false]);
  });

  test("… including storage", () => {
    expect(window.localStorage.getItem("k")).toBeNull();
  });
});

describe("after it", () => {
  test("no page globals remain", () => {
    expect("document" in globalThis).toBe(false);
    expect("window" in globalThis).toBe(false);
    expect("location" in globalThis).toBe(false);
    expect(globalThis.addEventListener).toBe(bunAddEventListener);
    expect(globalThis.fetch).toBe(bunFetch);
  });
});
