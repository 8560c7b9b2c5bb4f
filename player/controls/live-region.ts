import { h } from "../dom.ts";
import { attr } from "./control.ts";

/**
 * The player's polite live region (PlayerApi.announce): returns the function
 * that says a text through it. The region is emptied first and filled a
 * moment later, so a screen reader speaks the same text twice in a row too.
 */
export function liveRegion(root: HTMLElement): (text: string) => void {
  const live = h("div", "fl-sr", root);
  attr(live, "aria-live", "polite");
  return (text) => {
    live.textContent = "";
    setTimeout(() => (live.textContent = text), 50);
  };
}
