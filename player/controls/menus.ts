import type { MenuItem, PlayerApi } from "../types.ts";
import { h, listen } from "../dom.ts";
import { attr, button } from "./control.ts";

/** The control row's menus: at most one is open, over the player. */
export interface Menus {
  /** PlayerApi.menu: a button that opens a menu of `items()` (read at each opening); null without a control row. */
  menu(cls: string, label: string, items: () => MenuItem[], before?: Element | null): HTMLButtonElement | null;
  /** The open menu, if any. */
  readonly current: HTMLElement | null;
  /** Closes the open menu; `focus` returns focus to its button (Esc, a choice). */
  close(focus: boolean): void;
  destroy(): void;
}

/**
 * Menus of radio items (speed, quality, and the features' subtitles and
 * chapters): `role="menu"` with `menuitemradio` items, focus on the checked
 * one; arrows, Home and End move, Tab and a press outside close (Esc is the
 * keyboard map's, player/README.md "Keyboard").
 */
export function menus(player: PlayerApi): Menus {
  let current: HTMLElement | null = null;
  let owner: HTMLElement | null = null;
  const close = (focus: boolean) => {
    if (!current) return;
    current.remove();
    current = null;
    attr(owner!, "aria-expanded", false);
    if (focus) owner!.focus();
    owner = null;
  };
  const open = (btn: HTMLElement, label: string, items: MenuItem[]) => {
    const same = owner === btn;
    close(false);
    if (same) return;
    const m = (current = h("div", "fl-menu", player.root));
    owner = btn;
    attr(m, "role", "menu");
    attr(m, "aria-label", label);
    attr(btn, "aria-expanded", true);
    let first: HTMLElement | null = null;
    for (const it of items) {
      const b = h("button", "", m, it.label);
      b.type = "button";
      b.tabIndex = -1;
      attr(b, "role", "menuitemradio");
      attr(b, "aria-checked", !!it.checked);
      b.onclick = () => {
        close(true);
        it.run();
      };
      if (it.checked || !first) first = it.checked ? b : first || b;
    }
    m.onkeydown = (e) => {
      const list = [...m.children] as HTMLElement[];
      const i = list.indexOf(document.activeElement as HTMLElement);
      const n = ({ ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: list.length - 1 } as Record<string, number | undefined>)[e.key];
      if (e.key === "Tab") close(false);
      if (n === undefined) return;
      e.preventDefault();
      list[(n + list.length) % list.length]?.focus();
    };
    first?.focus();
  };
  const off = listen(document, "pointerdown", (e) => {
    const t = e.target as Node;
    if (current && !current.contains(t) && !owner?.contains(t)) close(false);
  });
  return {
    menu(cls, label, items, before) {
      if (!player.controls) return null;
      const b = button(player, cls, label, before);
      attr(b, "aria-haspopup", "menu");
      attr(b, "aria-expanded", false);
      b.onclick = () => open(b, label, items());
      return b;
    },
    get current() {
      return current;
    },
    close,
    destroy() {
      close(false);
      off();
    },
  };
}
