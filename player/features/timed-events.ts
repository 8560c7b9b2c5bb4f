import type { Feature, TimedEventData, TimedEventOption } from "../types.ts";
import { applyToPage, nowAndParsed, remember, revealed } from "./lib/page-elements.ts";
import { onReach } from "./lib/style.ts";

const idOf = (e: TimedEventOption) => `${e.time_s}|${e.selector || ""}|${e.action || "show"}`;
const dataOf = (e: TimedEventOption, restored: boolean): TimedEventData => ({
  name: e.name ?? null,
  time_s: e.time_s,
  selector: e.selector ?? null,
  action: e.action === "hide" ? "hide" : "show",
  restored,
});

/**
 * timed_events_options.events [{time_s, selector, action, name, persist}]: when
 * playback first reaches time_s, every page element matching selector is shown
 * (or hidden) and `timed_event` reaches the page API and the analytics. With
 * persist (the default), a returning viewer on this device gets the revealed
 * state at load (and `timed_event` with `restored: true`).
 */
export const timedEvents: Feature = {
  name: "timed_events",
  setup(player) {
    const events = (player.settings.timed_events_options?.events || []).filter((e) => e && e.time_s >= 0);
    if (!events.length) return;
    const code = player.config.video.code;
    const seen = new Set(revealed(code));
    const restored = events.filter((e) => e.persist !== false && seen.has(idOf(e)));
    const apply = (e: TimedEventOption) => e.selector && applyToPage(e.selector, e.action === "hide" ? "hide" : "show");
    nowAndParsed(() => restored.forEach(apply));
    const offReady = player.on("ready", () => restored.forEach((e) => player.emit("timed_event", dataOf(e, true))));
    const offReach = onReach(
      player,
      events
        .filter((e) => !restored.includes(e))
        .map((e) => ({
          time: e.time_s,
          run() {
            apply(e);
            if (e.persist !== false) remember(code, idOf(e));
            player.emit("timed_event", dataOf(e, false));
            player.collect("timed_event", { name: e.name || "", selector: e.selector || "" });
          },
        })),
    );
    return () => {
      offReady();
      offReach();
    };
  },
};
