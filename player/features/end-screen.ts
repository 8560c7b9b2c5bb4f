import type { Feature } from "../types.ts";
import { RANK_END } from "../overlay-ranks.ts";
import { el, link, on, overlaySlot, own, style } from "./lib/style.ts";

/**
 * end_screen_options {mode, text, button_text, button_url} at the end of the
 * video: `poster` brings the poster back with a replay button, `replay` puts a
 * replay button over the last frame, `text` shows the text with a button to
 * button_url (a click is a `cta_click`) and a replay link; `last_frame` leaves
 * the last frame. An overlay (overlay-ranks.ts): it waits while one above it (an
 * open exit intent, a form) has the stage, and shows when that one goes.
 */
export const endScreen: Feature = {
  name: "end_screen",
  setup(player) {
    const o = player.settings.end_screen_options;
    const mode = o?.mode || "last_frame";
    if (mode === "last_frame") return;
    style(
      "fl-css-end",
      ".fl-end{position:absolute;inset:0;z-index:2;display:flex;flex-direction:column;align-items:center;justify-content:center;gap:12px;background:#000a center/cover no-repeat;text-align:center;padding:16px}" +
        ".fl-end p{margin:0;font-size:18px;font-weight:600;max-width:90%}.fl-end a,.fl-end button{border:0;background:var(--fl-main);color:var(--fl-on-main);font:600 15px var(--fl-font);padding:10px 18px;border-radius:6px;text-decoration:none;cursor:pointer}" +
        ".fl-end .fl-replay{background:#fff3}",
    );
    const screen = overlaySlot(player);
    const show = () => {
      if (!own(player)) return;
      screen.hide();
      const s = el("div", `fl-end fl-end-${mode}`, player.layer);
      if (mode === "poster" && player.source.poster) s.style.backgroundImage = `url("${player.source.poster.replace(/"/g, "%22")}")`;
      if (mode === "text") {
        el("p", "", s, o?.text);
        link(s, "fl-end-cta", o?.button_url, o?.button_text || "Learn more", () => player.collect("cta_click", { source: "end_screen", url: o?.button_url }));
      }
      const replay = el("button", "fl-replay", s, "Replay");
      replay.type = "button";
      replay.onclick = () => {
        screen.hide();
        player.seek(0);
        player.play();
      };
      screen.show(s, RANK_END, { say: mode === "text" ? o?.text || undefined : undefined });
    };
    const offs = [on(player.video, "ended", show), on(player.video, "play", screen.hide), player.on("source", screen.hide)];
    return () => {
      offs.forEach((f) => f());
      screen.hide();
    };
  },
};
