import { describe, expect, jest, test } from "bun:test";
import { fakePlayer, sleep, useDom } from "../../test/helpers/player-dom.ts";
import { ControlsController } from "./controls-controller.ts";

useDom();

/** A player whose browser offers fullscreen and picture in picture, with the controller on it. */
function mount(settings = {}, title?: string) {
  const p = fakePlayer({ controls_options: { pip: true }, speed_options: { speeds: [1, 2] }, ...settings }, { title });
  Object.assign(p.root, { requestFullscreen: async () => {} });
  Object.assign(document, { pictureInPictureEnabled: true });
  Object.assign(p.video, { requestPictureInPicture: async () => {} });
  const c = new ControlsController(p, p.big);
  p.announce = (t) => c.announce(t);
  p.menu = (...args) => c.menu(...args);
  return { p, c };
}

const row = (root: Element) => [...root.querySelector(".fl-controls")!.children].map((e) => e.className);

describe("controls controller", () => {
  test("composes the row in its order, features' buttons before fullscreen, and the live region last in the root", () => {
    const { p } = mount();
    p.emit("levels", { heights: [360, 720] });
    p.menu("fl-chm", "Chapters", () => []);
    expect(row(p.root)).toEqual([
      "fl-track",
      "fl-btn fl-play",
      "fl-time",
      "fl-grow",
      "fl-btn fl-speed",
      "fl-btn fl-pip",
      "fl-btn fl-q",
      "fl-btn fl-chm",
      "fl-btn fl-fs",
      "fl-btn fl-mute",
    ]);
    expect(p.root.lastElementChild!.className).toBe("fl-sr");
  });

  test("the root is a focusable region named after the video", () => {
    const named = mount({}, "Spring launch").p.root;
    expect([named.tabIndex, named.getAttribute("role"), named.getAttribute("aria-label")]).toEqual([0, "region", "Video player: Spring launch"]);
    expect(mount({}, "").p.root.getAttribute("aria-label")).toBe("Video player: video");
  });

  test("keys, the picture and the big button reach the controls; announce speaks in the live region", async () => {
    const { p } = mount();
    p.media({ duration: 120, currentTime: 30, readyState: 1 });
    p.big.click();
    expect(p.root.querySelector(".fl-play")!.getAttribute("aria-label")).toBe("Pause");
    p.key("ArrowRight");
    expect(p.events("seek")).toEqual([{ to: 35 }]);
    p.video.click();
    expect(p.video.paused).toBe(true);
    p.key("ArrowDown");
    await sleep(70);
    expect(p.root.querySelector(".fl-sr")!.textContent).toBe("Volume 90%");
    p.emit("error", { type: "network", details: "manifestLoadError", fatal: true });
    expect(p.root.querySelector(".fl-err[role=alert]")).not.toBeNull();
  });

  test("the controls fade 2.5 s after the last pointer move or key, and come back on the next", () => {
    jest.useFakeTimers();
    try {
      const { p } = mount();
      p.fire(p.root, "pointermove", {}, "PointerEvent");
      jest.advanceTimersByTime(2499);
      expect(p.root.classList.contains("fl-idle")).toBe(false);
      jest.advanceTimersByTime(1);
      expect(p.root.classList.contains("fl-idle")).toBe(true);
      p.key("q");
      expect(p.root.classList.contains("fl-idle")).toBe(false);
      jest.advanceTimersByTime(2500);
      expect(p.root.classList.contains("fl-idle")).toBe(true);
      p.fire(p.root, "pointerdown", {}, "PointerEvent");
      expect(p.root.classList.contains("fl-idle")).toBe(false);
    } finally {
      jest.useRealTimers();
    }
  });

  test("destroy closes an open menu and leaves the player deaf to keys, media and bus events", () => {
    jest.useFakeTimers();
    try {
      const { p, c } = mount();
      p.fire(p.root, "pointermove", {}, "PointerEvent");
      p.root.querySelector<HTMLButtonElement>(".fl-speed")!.click();
      c.destroy();
      expect(p.root.querySelector(".fl-menu")).toBeNull();
      jest.advanceTimersByTime(3000);
      expect(p.root.classList.contains("fl-idle")).toBe(false);
      expect(p.key(" ")).toBe(false);
      p.media({ paused: false, duration: 60, currentTime: 30 }, "play", "timeupdate");
      expect(p.root.querySelector(".fl-play")!.getAttribute("aria-label")).toBe("Play");
      expect(p.root.querySelector(".fl-time")!.textContent).toBe("0:00");
      p.emit("error", { type: "media", details: "mediaDecodeError", fatal: true });
      p.emit("levels", { heights: [360, 720] });
      expect(p.root.querySelector(".fl-err,.fl-q")).toBeNull();
    } finally {
      jest.useRealTimers();
    }
  });
});
