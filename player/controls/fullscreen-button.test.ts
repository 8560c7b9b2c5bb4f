import { describe, expect, test } from "bun:test";
import { clickInAndOut, fakePlayer, useDom } from "../../test/helpers/player-dom.ts";
import { fullscreenButton, toggleFullscreen } from "./fullscreen-button.ts";

useDom();

describe("fullscreen", () => {
  test("the button takes the player's root fullscreen, and leaves fullscreen when something is", async () => {
    const p = fakePlayer();
    const calls: string[] = [];
    Object.assign(p.root, { requestFullscreen: async () => void calls.push("root") });
    Object.assign(document, { exitFullscreen: async () => void calls.push("exit") });
    fullscreenButton(p);
    const b = p.controls!.querySelector<HTMLButtonElement>(".fl-fs")!;
    expect(b.getAttribute("aria-label")).toBe("Fullscreen");
    clickInAndOut(b, "fullscreenElement", p.root);
    expect(calls).toEqual(["root", "exit"]);
  });

  test("iPhone: no element fullscreen, the video's own; a refusal is swallowed", async () => {
    const p = fakePlayer();
    let entered = 0;
    Object.assign(p.video, { webkitEnterFullscreen: () => entered++ });
    fullscreenButton(p);
    p.controls!.querySelector<HTMLButtonElement>(".fl-fs")!.click();
    expect(entered).toBe(1);
    const q = fakePlayer();
    Object.assign(q.root, { requestFullscreen: () => Promise.reject(new Error("denied")) });
    expect(() => toggleFullscreen(q)).not.toThrow();
    // Leaves a turn for the refusal: unhandled, it would fail the run.
    await Bun.sleep(0);
  });

  test("no button where neither fullscreen exists, nor with controls_options.fullscreen off", () => {
    const p = fakePlayer();
    fullscreenButton(p);
    expect(p.root.querySelector(".fl-fs")).toBeNull();
    const off = fakePlayer({ controls_options: { fullscreen: false } });
    Object.assign(off.root, { requestFullscreen: async () => {} });
    fullscreenButton(off);
    expect(off.root.querySelector(".fl-fs")).toBeNull();
  });
});
