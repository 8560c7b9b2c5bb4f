import { describe, expect, test } from "bun:test";
import type { MenuItem } from "../types.ts";
import { fakePlayer, useDom } from "../../test/helpers/player-dom.ts";
import { menus } from "./menus.ts";

useDom();

/** A row with a mute button, and a menu of three speeds with `checked` on one (`check` changes it). */
function setup(checked = "1x") {
  const p = fakePlayer();
  const mute = document.createElement("button");
  mute.className = "fl-btn fl-mute";
  p.controls!.append(mute);
  const m = menus(p);
  const ran: string[] = [];
  const items = (): MenuItem[] => ["0.5x", "1x", "2x"].map((label) => ({ label, checked: label === checked, run: () => ran.push(label) }));
  const btn = m.menu("fl-speed", "Speed", items)!;
  return { p, m, btn, ran, mute, check: (label: string) => (checked = label) };
}

const open = () => document.querySelector<HTMLElement>(".fl-menu");
const focused = () => document.activeElement?.textContent;

describe("menus", () => {
  test("a button named for the menu, closed, placed before mute; none without a control row", () => {
    const { btn, mute } = setup();
    expect(btn.getAttribute("aria-label")).toBe("Speed");
    expect(btn.getAttribute("aria-haspopup")).toBe("menu");
    expect(btn.getAttribute("aria-expanded")).toBe("false");
    expect(btn.nextElementSibling).toBe(mute);
    const plain = fakePlayer({}, { plain: true });
    expect(menus(plain).menu("fl-speed", "Speed", () => [])).toBeNull();
  });

  test("opening shows a labelled menu of radio items, reads the items afresh, and focuses the checked one", () => {
    const { p, m, btn, check } = setup("2x");
    btn.click();
    const menu = open()!;
    expect(m.current).toBe(menu);
    expect(menu.parentElement).toBe(p.root);
    expect(menu.getAttribute("role")).toBe("menu");
    expect(menu.getAttribute("aria-label")).toBe("Speed");
    expect(btn.getAttribute("aria-expanded")).toBe("true");
    const items = [...menu.children];
    expect(items.map((b) => [b.textContent, b.getAttribute("role"), b.getAttribute("aria-checked"), (b as HTMLElement).tabIndex])).toEqual([
      ["0.5x", "menuitemradio", "false", -1],
      ["1x", "menuitemradio", "false", -1],
      ["2x", "menuitemradio", "true", -1],
    ]);
    expect(focused()).toBe("2x");
    check("0.5x");
    btn.click();
    btn.click();
    expect(open()!.querySelector("[aria-checked=true]")!.textContent).toBe("0.5x");
    expect(focused()).toBe("0.5x");
  });

  test("arrows move and wrap, Home and End jump", () => {
    const { p, btn } = setup("1x");
    btn.click();
    const press = (key: string) => p.key(key, document.activeElement!);
    expect(press("ArrowDown")).toBe(true);
    expect(focused()).toBe("2x");
    press("ArrowDown");
    expect(focused()).toBe("0.5x");
    press("ArrowUp");
    expect(focused()).toBe("2x");
    press("Home");
    expect(focused()).toBe("0.5x");
    press("End");
    expect(focused()).toBe("2x");
    expect(press("x")).toBe(false);
  });

  test("a choice closes the menu, returns focus to its button, then runs", () => {
    const { m, btn, ran } = setup();
    btn.click();
    [...open()!.children].find((b) => b.textContent === "0.5x")!.dispatchEvent(new window.Event("click"));
    expect(ran).toEqual(["0.5x"]);
    expect(open()).toBeNull();
    expect(m.current).toBeNull();
    expect(btn.getAttribute("aria-expanded")).toBe("false");
    expect(document.activeElement).toBe(btn);
  });

  test("its button again, Tab, or a press outside closes it; a press on its own button does not", () => {
    const { p, btn } = setup();
    btn.click();
    btn.click();
    expect(open()).toBeNull();
    btn.click();
    p.key("Tab", document.activeElement!);
    expect(open()).toBeNull();
    expect(document.activeElement).not.toBe(btn);
    btn.click();
    p.fire(btn, "pointerdown", {}, "PointerEvent");
    expect(open()).not.toBeNull();
    p.fire(document.body, "pointerdown", {}, "PointerEvent");
    expect(open()).toBeNull();
    expect(btn.getAttribute("aria-expanded")).toBe("false");
  });

  test("one menu at a time; `before` places a button; destroy closes and stops listening", () => {
    const { p, m, btn } = setup();
    const other = m.menu("fl-q", "Quality", () => [{ label: "Auto", run: () => {} }], btn)!;
    expect(other.nextElementSibling).toBe(btn);
    btn.click();
    other.click();
    expect(document.querySelectorAll(".fl-menu").length).toBe(1);
    expect(open()!.getAttribute("aria-label")).toBe("Quality");
    expect(btn.getAttribute("aria-expanded")).toBe("false");
    expect(focused()).toBe("Auto");
    m.close(true);
    expect(document.activeElement).toBe(other);
    btn.click();
    m.destroy();
    expect(open()).toBeNull();
    btn.click();
    p.fire(document.body, "pointerdown", {}, "PointerEvent");
    // Nothing listens outside any more: the menu opened after destroy stays.
    expect(open()).not.toBeNull();
  });
});
