import type { Feature } from "../types.ts";
import { applyToPage, nowAndParsed, remember, revealed } from "./lib/page-elements.ts";
import { onReach, style } from "./lib/style.ts";

const PITCH = "[data-frameline-pitch]";

/**
 * pitch_time_options {time_s, persist}: until playback reaches the pitch, the
 * CTA cards and action CTAs stay hidden; at time_s they may show, the page
 * elements marked `data-frameline-pitch` are revealed, and `timed_event` named
 * `pitch` reaches the page API and the analytics. With persist (the default) a
 * returning viewer on this device sees the pitch state at load.
 */
export const pitch: Feature = {
  name: "pitch",
  setup(player) {
    const o = player.settings.pitch_time_options;
    const at = o?.time_s;
    if (typeof at !== "number" || at < 0) return;
    style("fl-css-pitch", ".fl-prepitch .fl-cta,.fl-prepitch .fl-acta{display:none}");
    const code = player.config.video.code;
    const persist = o?.persist !== false;
    const emit = (restored: boolean) => player.emit("timed_event", { name: "pitch", time_s: at, selector: PITCH, action: "show", restored });
    if (persist && revealed(code).includes("pitch")) {
      nowAndParsed(() => applyToPage(PITCH, "show"));
      return player.on("ready", () => emit(true));
    }
    player.root.classList.add("fl-prepitch");
    const off = onReach(player, [
      {
        time: at,
        run() {
          player.root.classList.remove("fl-prepitch");
          applyToPage(PITCH, "show");
          if (persist) remember(code, "pitch");
          emit(false);
          player.collect("timed_event", { name: "pitch", selector: PITCH });
        },
      },
    ]);
    return () => {
      off();
      player.root.classList.remove("fl-prepitch");
    };
  },
};
