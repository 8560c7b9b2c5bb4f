import { describe, expect, test } from "bun:test";
import { fakePlayer, useDom } from "../../test/helpers/player-dom.ts";
import { menus } from "./menus.ts";
import { speedMenu } from "./speed-menu.ts";

useDom();

describe("speed menu", () => {
  test("shows the current speed; a choice changes it, and the button follows the video's rate", () => {
    const p = fakePlayer({ speed_options: { speeds: [0.5, 1, 1.5, 2] } });
    speedMenu(p, menus(p));
    const b = p.controls!.querySelector<HTMLButtonElement>(".fl-speed")!;
    expect([b.textContent, b.getAttribute("aria-label")]).toEqual(["1x", "Speed 1x"]);
    b.click();
    const items = [...document.querySelectorAll(".fl-menu [role=menuitemradio]")];
    expect(items.map((i) => [i.textContent, i.getAttribute("aria-checked")])).toEqual([
      ["0.5x", "false"],
      ["1x", "true"],
      ["1.5x", "false"],
      ["2x", "false"],
    ]);
    (items[3] as HTMLElement).click();
    expect(p.video.playbackRate).toBe(2);
    p.media({}, "ratechange");
    expect([b.textContent, b.getAttribute("aria-label")]).toEqual(["2x", "Speed 2x"]);
  });

  test("default_speed applies from the start, also without any control row", () => {
    const p = fakePlayer({ speed_options: { speeds: [1, 1.5], default_speed: 1.5 } });
    speedMenu(p, menus(p));
    expect([p.video.playbackRate, p.video.defaultPlaybackRate]).toEqual([1.5, 1.5]);
    expect(p.controls!.querySelector(".fl-speed")!.textContent).toBe("1.5x");
    const plain = fakePlayer({ speed_options: { default_speed: 2 } }, { plain: true });
    expect(speedMenu(plain, menus(plain))).toBeUndefined();
    expect(plain.video.playbackRate).toBe(2);
  });

  test("no menu with one speed, with allow_speed off or with controls_options.settings off", () => {
    for (const settings of [
      { speed_options: { speeds: [1] } },
      { speed_options: { speeds: [1, 2] }, playback_options: { allow_speed: false } },
      { speed_options: { speeds: [1, 2] }, controls_options: { settings: false } },
    ]) {
      const p = fakePlayer(settings);
      speedMenu(p, menus(p));
      expect(p.root.querySelector(".fl-speed")).toBeNull();
    }
  });
});
