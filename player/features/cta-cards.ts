import type { Feature } from "../types.ts";

/**
 * cta_cards_options.cards [{time_s, duration_s, text, button_text, url}]: a card
 * shows from time_s for duration_s seconds (to the end when absent or 0); a
 * click on its button is sent as cta_click {card_index, url}.
 */
export const ctaCards: Feature = {
  name: "cta_cards",
  setup(player) {
    const opts = player.settings.cta_cards_options;
    const cards = opts?.cards || [];
    if (opts?.enabled === false || !cards.length) return;
    const video = player.video;
    const shown = new Map<number, HTMLElement>();
    const render = (i: number) => {
      const card = cards[i];
      const el = document.createElement("div");
      el.className = "fl-cta";
      el.setAttribute("data-card", String(i));
      if (card.text) {
        const p = document.createElement("p");
        p.textContent = card.text;
        el.appendChild(p);
      }
      // Only web links: a card must never become a javascript: URL on the customer's page.
      if (card.url && /^https?:\/\//i.test(card.url)) {
        const a = document.createElement("a");
        a.href = card.url;
        a.target = "_blank";
        a.rel = "noopener";
        a.textContent = card.button_text || "Learn more";
        a.onclick = () => player.collect("cta_click", { card_index: i, url: card.url });
        el.appendChild(a);
      }
      player.layer.appendChild(el);
      player.announce([card.text, card.button_text].filter(Boolean).join(". "));
      return el;
    };
    const update = () => {
      const t = video.currentTime;
      const own = player.source.code === player.config.video.code;
      // A card without a time (the registry lets one through) never shows.
      cards.forEach(({ time_s = Infinity, duration_s }, i) => {
        const on = own && t >= time_s && (!duration_s || t < time_s + duration_s);
        const el = shown.get(i);
        if (on && !el) shown.set(i, render(i));
        else if (!on && el) {
          el.remove();
          shown.delete(i);
        }
      });
    };
    video.addEventListener("timeupdate", update);
    const off = player.on("source", update);
    return () => {
      off();
      video.removeEventListener("timeupdate", update);
      shown.forEach((el) => el.remove());
    };
  },
};
