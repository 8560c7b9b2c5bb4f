import type { Feature } from "../types.ts";
import { RANK_CTA } from "../overlay-ranks.ts";
import { el, link, style } from "./lib/style.ts";

/**
 * cta_cards_options.cards [{time_s, duration_s, text, button_text, url}]: a card
 * shows from time_s for duration_s seconds (to the end when absent or 0); a
 * click on its button is sent as cta_click {card_index, url}. A card that names
 * next_video_code is a button that sends cta_click {card_index, next_video_code}
 * (the funnel step) and swaps the player to that video (`next_video`,
 * features/funnel.ts). Each card is an
 * overlay (overlay-ranks.ts): it waits while one above it has the stage.
 */
export const ctaCards: Feature = {
  name: "cta_cards",
  setup(player) {
    const opts = player.settings.cta_cards_options;
    const cards = opts?.cards || [];
    if (opts?.enabled === false || !cards.length) return;
    style(
      "fl-css-cta",
      ".fl-cta{position:absolute;right:12px;bottom:64px;max-width:70%;background:var(--fl-bg);color:var(--fl-text);border-left:4px solid var(--fl-main);padding:10px 12px;border-radius:6px;box-shadow:0 2px 12px #0008}" +
        ".fl-cta p{margin:0 0 8px}.fl-cta a,.fl-cta button{border:0;font:inherit;cursor:pointer;display:inline-block;background:var(--fl-main);color:var(--fl-on-main);padding:6px 12px;border-radius:4px;text-decoration:none;font-weight:600}",
    );
    const video = player.video;
    const shown = new Map<number, [HTMLElement, () => void]>();
    const render = (i: number): [HTMLElement, () => void] => {
      const card = cards[i];
      const box = el("div", "fl-cta", player.layer);
      box.setAttribute("data-card", String(i));
      if (card.text) el("p", "", box, card.text);
      const next = card.next_video_code;
      // Only players built with the funnel (compiler/flags.ts) carry the swap.
      if (__FL_FEATURES__.funnel && next) {
        const b = el("button", "fl-cta-next", box, card.button_text || "Watch next");
        b.type = "button";
        b.onclick = () => {
          player.collect("cta_click", { card_index: i, next_video_code: next });
          player.emit("next_video", { code: next });
        };
      }
      // Only web links: a card must never become a javascript: URL on the customer's page.
      else link(box, "", card.url, card.button_text || "Learn more", () => player.collect("cta_click", { card_index: i, url: card.url }));
      return [box, player.overlay(box, RANK_CTA, { say: [card.text, card.button_text].filter(Boolean).join(". ") })];
    };
    const update = () => {
      const t = video.currentTime;
      const own = player.source.code === player.config.video.code;
      // A card without a time (the registry lets one through) never shows.
      cards.forEach(({ time_s = Infinity, duration_s }, i) => {
        const on = own && t >= time_s && (!duration_s || t < time_s + duration_s);
        const card = shown.get(i);
        if (on && !card) shown.set(i, render(i));
        else if (!on && card) {
          card[1]();
          card[0].remove();
          shown.delete(i);
        }
      });
    };
    video.addEventListener("timeupdate", update);
    const off = player.on("source", update);
    return () => {
      off();
      video.removeEventListener("timeupdate", update);
      shown.forEach(([box, release]) => (release(), box.remove()));
    };
  },
};
