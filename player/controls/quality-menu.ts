import type { PlayerApi } from "../types.ts";
import { all, type Teardown } from "./control.ts";
import type { Menus } from "./menus.ts";

/**
 * Under hls.js, a menu with Auto and each rendition, best first ("HD"):
 * picking one emits the bus's `level`. Native HLS sends no `levels` and keeps
 * the browser's own choice; one rendition, or controls_options.settings off,
 * gets no menu.
 */
export function qualityMenu(player: PlayerApi, menus: Menus): Teardown {
  let btn: HTMLButtonElement | null = null;
  let level = -1;
  const reset = () => {
    btn?.remove();
    btn = null;
    level = -1;
  };
  return all([
    player.on("source", reset),
    player.on("levels", ({ heights }) => {
      // A new stream (a rendition switch) brings its own ladder, on Auto.
      reset();
      if (heights.length < 2 || player.settings.controls_options?.settings === false) return;
      const pick = (index: number) => () => {
        level = index;
        player.emit("level", { index });
      };
      btn = menus.menu("fl-q", "HD quality", () => [
        { label: "Auto", checked: level < 0, run: pick(-1) },
        // Best first; hls.js lists them by bitrate, lowest first.
        ...heights.map((px, i) => ({ label: px + "p", checked: level === i, run: pick(i), px })).sort((a, b) => b.px - a.px),
      ]);
      if (btn) btn.textContent = "HD";
    }),
  ]);
}
