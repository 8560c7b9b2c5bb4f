import { describe, expect, test } from "bun:test";
import { fakePlayer, useDom } from "../../test/helpers/player-dom.ts";
import { muteButton } from "./mute-button.ts";

useDom();

describe("mute button", () => {
  test("toggles muted and reads what it does next, following the video's volume events", () => {
    const p = fakePlayer();
    muteButton(p);
    const b = p.controls!.querySelector<HTMLButtonElement>(".fl-mute")!;
    expect(b.getAttribute("aria-label")).toBe("Mute");
    b.click();
    expect(p.video.muted).toBe(true);
    p.media({}, "volumechange");
    expect(b.getAttribute("aria-label")).toBe("Unmute");
    expect(b.classList.contains("fl-on")).toBe(true);
    b.click();
    p.media({}, "volumechange");
    expect([p.video.muted, b.getAttribute("aria-label"), b.classList.contains("fl-on")]).toEqual([false, "Mute", false]);
  });

  test("a muted autoplay starts as Unmute; controls_options.volume off: no button", () => {
    const p = fakePlayer();
    p.video.muted = true;
    muteButton(p);
    expect(p.root.querySelector(".fl-mute")!.getAttribute("aria-label")).toBe("Unmute");
    const off = fakePlayer({ controls_options: { volume: false } });
    expect(muteButton(off)).toBeUndefined();
    expect(off.root.querySelector(".fl-mute")).toBeNull();
  });
});
