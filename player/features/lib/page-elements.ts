/**
 * Page elements the seller's selectors name (timed events, the pitch): shown
 * (the `hidden` attribute and an inline `display:none` removed) or hidden, and
 * what a viewer already revealed, kept per video on this device.
 */
import { read, write } from "../../../browser/storage.ts";

/** Shows or hides every element matching `selector`; a selector the browser refuses changes nothing and never throws. */
export function applyToPage(selector: string, action: "show" | "hide"): void {
  let found: NodeListOf<HTMLElement>;
  try {
    found = document.querySelectorAll<HTMLElement>(selector);
  } catch {
    return;
  }
  found.forEach((e) => {
    if (action === "hide") e.style.display = "none";
    else {
      e.removeAttribute("hidden");
      if (e.style.display === "none") e.style.removeProperty("display");
    }
  });
}

const key = (code: string) => `fl_reveal_${code}`;

/** The reveals this device already reached for this video. */
export function revealed(code: string): string[] {
  try {
    const list = JSON.parse(read("localStorage", key(code)) || "[]");
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

export function remember(code: string, id: string): void {
  const list = revealed(code);
  if (!list.includes(id)) write("localStorage", key(code), JSON.stringify([...list, id].slice(-200)));
}

/** Runs `fn` now and, while the page is still parsing, again once it is parsed (elements after the player may not exist yet). */
export function nowAndParsed(fn: () => void): void {
  fn();
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fn, { once: true });
}
