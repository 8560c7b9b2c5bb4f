import type { Feature } from "../types.ts";
import { timedList } from "./lib/timed-list.ts";

/**
 * notes_options.notes [{time_s, text, url?}]: the creator's timed notes listed
 * under the player (beside it when the page is wide enough), in time order. The
 * note playback last passed is highlighted (`fl-on`, `aria-current`); a click
 * on a note seeks there. Hidden while another playlist item plays.
 */
export const notes: Feature = {
  name: "notes",
  setup(player) {
    const list = (player.settings.notes_options?.notes || []).filter((n) => n && typeof n.text === "string");
    return timedList(player, player.mount, "fl-notes", "fl-note", "Notes", list);
  },
};
