import type { ActionOption, Feature } from "../types.ts";
import { RANK_CTA } from "../overlay-ranks.ts";
import { el, link, on, onReach, own, pauseForPlayer, style } from "./lib/style.ts";

/**
 * actions_options.actions [{trigger: "time" | "end", time_s, type, url, text,
 * button_text}]: at a time (once) or at the end of the video, `redirect` sends
 * the page to url, `cta` shows a call to action over the player (a click is a
 * `cta_click`; an overlay of the CTA cards' rank, overlay-ranks.ts, announced when
 * shown), `pause` pauses.
 */
export const actions: Feature = {
  name: "actions",
  setup(player) {
    const list = player.settings.actions_options?.actions || [];
    if (!list.length) return;
    const shown: (() => void)[] = [];
    const run = (a: ActionOption, index: number) => {
      if (a.type === "pause") pauseForPlayer(player);
      else if (a.type === "redirect") {
        if (a.url && /^https?:\/\//i.test(a.url)) location.href = a.url;
      } else if (a.type === "cta") {
        style(
          "fl-css-actions",
          ".fl-acta{position:absolute;z-index:2;left:50%;top:50%;transform:translate(-50%,-50%);max-width:80%;background:var(--fl-bg);color:var(--fl-text);border-top:4px solid var(--fl-main);padding:14px 18px;border-radius:8px;text-align:center;box-shadow:0 4px 24px #000a}" +
            ".fl-acta p{margin:0 0 10px}.fl-acta a{display:inline-block;background:var(--fl-main);color:var(--fl-on-main);padding:8px 16px;border-radius:4px;text-decoration:none;font-weight:700}",
        );
        const card = el("div", "fl-acta", player.layer);
        el("p", "", card, a.text);
        link(card, "", a.url, a.button_text || "Learn more", () => player.collect("cta_click", { action_index: index, url: a.url }));
        const release = player.overlay(card, RANK_CTA, { say: [a.text, a.button_text].filter(Boolean).join(". ") });
        shown.push(() => (release(), card.remove()));
      }
    };
    const atEnd = list.map((a, i) => [a, i] as const).filter(([a]) => a.trigger === "end");
    const offs = [
      onReach(
        player,
        list.flatMap((a, i) => (a.trigger === "end" ? [] : [{ time: a.time_s ?? 0, run: () => run(a, i) }])),
      ),
      on(player.video, "ended", () => own(player) && atEnd.forEach(([a, i]) => run(a, i))),
    ];
    return () => {
      offs.forEach((f) => f());
      shown.forEach((hide) => hide());
    };
  },
};
