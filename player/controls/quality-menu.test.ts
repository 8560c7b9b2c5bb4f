import { describe, expect, test } from "bun:test";
import { fakePlayer, useDom } from "../../test/helpers/player-dom.ts";
import { menus } from "./menus.ts";
import { qualityMenu } from "./quality-menu.ts";

useDom();

const items = () => [...document.querySelectorAll(".fl-menu [role=menuitemradio]")].map((i) => [i.textContent, i.getAttribute("aria-checked")]);
const pick = (label: string) => [...document.querySelectorAll<HTMLElement>(".fl-menu button")].find((b) => b.textContent === label)!.click();

describe("quality menu", () => {
  test("hls.js's renditions, best first after Auto; a choice asks for that level and stays checked", () => {
    const p = fakePlayer();
    qualityMenu(p, menus(p));
    expect(p.root.querySelector(".fl-q")).toBeNull();
    p.emit("levels", { heights: [360, 720, 1080] });
    const b = p.controls!.querySelector<HTMLButtonElement>(".fl-q")!;
    expect([b.textContent, b.getAttribute("aria-label")]).toEqual(["HD", "HD quality"]);
    b.click();
    expect(items()).toEqual([
      ["Auto", "true"],
      ["1080p", "false"],
      ["720p", "false"],
      ["360p", "false"],
    ]);
    pick("720p");
    expect(p.events("level")).toEqual([{ index: 1 }]);
    b.click();
    expect(items().find(([, c]) => c === "true")).toEqual(["720p", "true"]);
    pick("Auto");
    expect(p.events("level")).toEqual([{ index: 1 }, { index: -1 }]);
  });

  test("a new ladder starts on Auto with its own menu; a new source or a single rendition has none", () => {
    const p = fakePlayer();
    qualityMenu(p, menus(p));
    p.emit("levels", { heights: [360, 720] });
    p.controls!.querySelector<HTMLButtonElement>(".fl-q")!.click();
    pick("720p");
    p.emit("levels", { heights: [480, 960] });
    expect(p.root.querySelectorAll(".fl-q").length).toBe(1);
    p.controls!.querySelector<HTMLButtonElement>(".fl-q")!.click();
    expect(items()[0]).toEqual(["Auto", "true"]);
    p.emit("source", p.source);
    expect(p.root.querySelector(".fl-q")).toBeNull();
    p.emit("levels", { heights: [720] });
    expect(p.root.querySelector(".fl-q")).toBeNull();
  });

  test("controls_options.settings off: no menu; after teardown levels add nothing", () => {
    const p = fakePlayer({ controls_options: { settings: false } });
    qualityMenu(p, menus(p));
    p.emit("levels", { heights: [360, 720] });
    expect(p.root.querySelector(".fl-q")).toBeNull();
    const q = fakePlayer();
    qualityMenu(q, menus(q))();
    q.emit("levels", { heights: [360, 720] });
    expect(q.root.querySelector(".fl-q")).toBeNull();
  });
});
