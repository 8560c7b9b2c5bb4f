import type { PlayerApi } from "../types.ts";
import { h } from "../dom.ts";
import { all, attr, type Teardown } from "./control.ts";
import { RANK_ERROR } from "../overlay-ranks.ts";

const ERROR_TEXT: Record<string, string> = {
  network: "The video could not load. Check your connection and try again.",
  media: "The video could not play in this browser.",
};

/**
 * A fatal error shows a message with Retry (`role="alert"`) over the player;
 * Retry emits the bus's `retry` (the source reloads where it stopped). A new
 * source clears it. Errors that are not fatal show nothing. It outranks every other
 * overlay (overlay-ranks.ts).
 */
export function errorOverlay(player: PlayerApi): Teardown {
  let box: HTMLElement | null = null;
  let release = () => {};
  const clear = () => {
    release();
    box?.remove();
    box = null;
  };
  return all([
    player.on("error", ({ fatal, type, details }) => {
      if (!fatal) return;
      clear();
      box = h("div", "fl-err", player.root);
      attr(box, "role", "alert");
      h("p", "", box, details === "noStream" ? "This video is not ready yet." : ERROR_TEXT[type] || "Something went wrong while playing this video.");
      const retry = h("button", "fl-btn", box, "Retry");
      retry.type = "button";
      retry.onclick = () => {
        clear();
        player.emit("retry", undefined);
      };
      // An alert speaks by itself (role=alert).
      release = player.overlay(box, RANK_ERROR, { modal: true });
    }),
    player.on("source", clear),
  ]);
}
