import { describe, expect, test } from "bun:test";
import type { PlayerSettings } from "../types.ts";
import { fakePlayer, useDom } from "../../test/helpers/player-dom.ts";
import { keyboard } from "./keyboard.ts";
import { menus } from "./menus.ts";

useDom();

/** A player 30 s into a 120 s video, with the keyboard map on its root. */
function setup(settings: PlayerSettings = {}, plain = false) {
  const p = fakePlayer(settings, { plain });
  const m = menus(p);
  const said: string[] = [];
  const off = keyboard(p, m, (t) => said.push(t));
  p.media({ duration: 120, currentTime: 30, readyState: 1 });
  const seeks = () => p.events("seek").map((s) => s.to);
  return { p, m, said, off, seeks };
}

describe("keyboard map", () => {
  test("Space and K play and pause (any case)", () => {
    const { p } = setup();
    expect(p.key(" ")).toBe(true);
    expect(p.intents).toEqual([false]);
    expect(p.video.paused).toBe(false);
    expect(p.key("K")).toBe(true);
    expect(p.video.paused).toBe(true);
    p.key("k");
    expect(p.intents).toEqual([false, false]);
  });

  test("← → seek 5 s, J L 10 s, 0-9 jump to tenths, always within the video", () => {
    const { p, seeks } = setup();
    for (const k of ["ArrowRight", "ArrowLeft", "l", "j", "5", "0", "9"]) {
      expect(p.key(k)).toBe(true);
      p.media({ currentTime: 30 });
    }
    expect(seeks()).toEqual([35, 25, 40, 20, 60, 0, 108]);
    p.media({ currentTime: 118 });
    p.key("l");
    p.media({ currentTime: 3 });
    p.key("j");
    expect(seeks().slice(-2)).toEqual([120, 0]);
  });

  test("Page Up/Down, Home and End belong to the slider only", () => {
    const { p, seeks } = setup();
    for (const k of ["PageUp", "PageDown", "Home", "End"]) expect(p.key(k)).toBe(false);
    expect(seeks()).toEqual([]);
    for (const k of ["PageUp", "PageDown", "Home", "End"]) {
      expect(p.key(k, p.track!)).toBe(true);
      p.media({ currentTime: 30 });
    }
    expect(seeks()).toEqual([40, 20, 0, 120]);
  });

  test("no seeking while cloaked, with allow_seek off, or before the duration is known", () => {
    const cloaked = setup();
    cloaked.p.root.classList.add("fl-cloaked");
    const locked = setup({ playback_options: { allow_seek: false } });
    const early = setup();
    early.p.media({ duration: Number.NaN });
    for (const { p } of [cloaked, locked, early]) for (const k of ["ArrowRight", "j", "5"]) p.key(k);
    expect([cloaked.seeks(), locked.seeks(), early.seeks()]).toEqual([[], [], []]);
  });

  test("↑ ↓ change the volume and say it; M mutes; F fullscreen; C presses the captions button", () => {
    const { p, said } = setup();
    p.video.volume = 0.5;
    p.video.muted = true;
    p.key("ArrowUp");
    expect([p.video.volume, p.video.muted]).toEqual([0.6, false]);
    p.key("ArrowDown");
    p.key("ArrowDown");
    expect(p.video.volume).toBe(0.4);
    expect(said).toEqual(["Volume 60%", "Volume 50%", "Volume 40%"]);
    p.key("m");
    expect(p.video.muted).toBe(true);
    let fullscreen = 0;
    Object.assign(p.root, { requestFullscreen: async () => void fullscreen++ });
    p.key("f");
    expect(fullscreen).toBe(1);
    const cc = document.createElement("button");
    cc.className = "fl-btn fl-cc";
    let captions = 0;
    cc.onclick = () => captions++;
    p.controls!.append(cc);
    p.key("c");
    expect(captions).toBe(1);
  });

  test("nothing is taken with a modifier, from a form field, from a button's own Space/Enter, in plain mode, or for other keys", () => {
    const { p } = setup();
    expect(p.key("k", p.root, { ctrlKey: true })).toBe(false);
    expect(p.key("k", p.root, { metaKey: true })).toBe(false);
    const input = document.createElement("input");
    p.layer.append(input);
    expect(p.key(" ", input)).toBe(false);
    expect(p.key("m", input)).toBe(false);
    const button = document.createElement("button");
    p.layer.append(button);
    expect(p.key(" ", button)).toBe(false);
    expect(p.key("Enter", button)).toBe(false);
    expect(p.key("q")).toBe(false);
    expect(p.intents).toEqual([]);
    expect(p.video.muted).toBe(false);
    // On a button, the player's other keys still work.
    expect(p.key("m", button)).toBe(true);
    const plain = setup({}, true);
    expect(plain.p.key(" ")).toBe(false);
    expect(plain.p.intents).toEqual([]);
  });

  test("Esc closes an open menu and returns focus to its button; keys inside a menu are the menu's", () => {
    const { p, m } = setup();
    const btn = m.menu("fl-speed", "Speed", () => [{ label: "1x", checked: true, run: () => {} }])!;
    btn.click();
    expect(p.key("k", document.activeElement!)).toBe(false);
    expect(p.intents).toEqual([]);
    expect(p.key("Escape", document.activeElement!)).toBe(true);
    expect(m.current).toBeNull();
    expect(document.activeElement).toBe(btn);
    expect(p.key("Escape")).toBe(false);
  });

  test("after teardown no key is taken", () => {
    const { p, off } = setup();
    off();
    expect(p.key(" ")).toBe(false);
    expect(p.intents).toEqual([]);
  });
});
