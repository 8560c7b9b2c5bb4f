import { read, write } from "../../browser/storage.ts";
import type { Feature } from "../types.ts";
import { RANK_EXIT } from "../overlay-ranks.ts";
import { el, link, on, style } from "./lib/style.ts";

/**
 * exit_intent_options {message, button_text, button_url}: when the pointer
 * leaves the page through its top edge while the video plays, a message shows
 * over the player (with a button, whose click is a `cta_click`), once per
 * session: an alert dialog that takes focus and outranks the end screen
 * (overlay-ranks.ts), which waits until it is closed.
 */
export const exitIntent: Feature = {
  name: "exit_intent",
  setup(player) {
    const o = player.settings.exit_intent_options || {};
    if (!o.message) return;
    const key = `fl_exit_${player.config.video.code}`;
    const video = player.video;
    style(
      "fl-css-exit",
      ".fl-exit{position:absolute;left:50%;top:50%;transform:translate(-50%,-50%);z-index:2;max-width:80%;background:var(--fl-bg);color:var(--fl-text);border:2px solid var(--fl-main);border-radius:8px;padding:16px 20px;text-align:center;box-shadow:0 6px 28px #000c}" +
        ".fl-exit p{margin:0 0 10px;font-weight:600}.fl-exit a{display:inline-block;background:var(--fl-main);color:var(--fl-on-main);padding:8px 14px;border-radius:4px;text-decoration:none;font-weight:700;margin-right:8px}" +
        ".fl-exit button{border:0;background:#fff3;color:inherit;padding:8px 12px;border-radius:4px;cursor:pointer}",
    );
    let box: HTMLElement | null = null;
    let release = () => {};
    const off = on(document, "mouseout", (e) => {
      const m = e as MouseEvent;
      if (box || m.relatedTarget || m.clientY > 0 || video.paused || read("sessionStorage", key)) return;
      write("sessionStorage", key, "1");
      const b = (box = el("div", "fl-exit", player.layer));
      b.setAttribute("role", "alertdialog");
      el("p", "", b, o.message);
      link(b, "", o.button_url, o.button_text || "Learn more", () => player.collect("cta_click", { source: "exit_intent", url: o.button_url }));
      const close = el("button", "", b, "Close");
      close.type = "button";
      close.onclick = () => (release(), b.remove());
      release = player.overlay(b, RANK_EXIT, { say: o.message || undefined, modal: true });
    });
    return () => {
      off();
      release();
      box?.remove();
    };
  },
};
