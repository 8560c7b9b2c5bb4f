import { groupForm } from "./kit.tsx";

/** cta_cards_options.cards: a card with a button over the player from a time, for a while; the button opens a link or plays another video. */
export const ctaCardsForm = groupForm("cta_cards_options", "Call-to-action cards", (f) => (
  <>
    {f.check("enabled", "Show CTA cards")}
    {f.list("cards", "card", { time_s: 0, duration_s: 10, text: "", button_text: "", url: "" }, (r, _, i) => (
      <>
        <div class="row item">
          {r.num("time_s", `Card ${i + 1} shows at (s)`)}
          {r.num("duration_s", "for (s)")}
        </div>
        {r.text("text", "Text", { empty: "" })}
        <div class="row item">
          {r.text("button_text", "Button text", { empty: "" })}
          {r.text("url", "Link URL", { type: "url", empty: "" })}
        </div>
        {r.video("next_video_code", "Or play video (instead of the link)")}
      </>
    ))}
    <p class="hint">A card with a video to play swaps the player to it in place, in the same viewer session (see the Funnel paths tab of the video).</p>
  </>
));
