import type { PlayerApi } from "../types.ts";
import { listen } from "../dom.ts";
import { seekTo, togglePlay, type Teardown } from "./control.ts";
import { toggleFullscreen } from "./fullscreen-button.ts";
import type { Menus } from "./menus.ts";
import { stepVolume, toggleMute } from "./volume.ts";

/** Seconds per key; Page Up/Down only on the slider, where Home and End also work. */
const STEPS = { ArrowLeft: -5, ArrowRight: 5, j: -10, l: 10, PageDown: -10, PageUp: 10 };

/**
 * The keyboard map while focus is in the player (player/README.md
 * "Keyboard"): Space/K, J/L, ←/→, ↑/↓, M, F, C, 0-9, Esc closes a menu.
 * Nothing is taken from form fields (the lead form), from a button's own
 * Space/Enter, or with a modifier (the browser's shortcuts).
 */
export function keyboard(player: PlayerApi, menus: Menus, announce: (text: string) => void): Teardown {
  const video = player.video;
  return listen(player.root, "keydown", (ev) => {
    const e = ev as KeyboardEvent;
    const t = e.target as HTMLElement;
    if (e.ctrlKey || e.metaKey || e.altKey || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) || t.isContentEditable) return;
    const menu = menus.current;
    if (e.key === "Escape" && menu) {
      menus.close(true);
      e.preventDefault();
      return;
    }
    if (menu?.contains(t) || player.plain) return;
    if ((e.key === " " || e.key === "Enter") && /^(BUTTON|A)$/.test(t.tagName)) return;
    const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    const d = video.duration;
    const onSlider = t === player.track;
    const step = (STEPS as Record<string, number | undefined>)[k];
    if (k === " " || k === "k") togglePlay(player);
    else if (step !== undefined && (onSlider || !k.startsWith("Page"))) seekTo(player, video.currentTime + step);
    else if (onSlider && (k === "Home" || k === "End")) seekTo(player, k === "Home" ? 0 : d);
    else if (k === "ArrowUp" || k === "ArrowDown") stepVolume(video, k === "ArrowUp", announce);
    else if (k === "m") toggleMute(video);
    else if (k === "f") toggleFullscreen(player);
    else if (k === "c") player.root.querySelector<HTMLElement>(".fl-cc")?.click();
    else if (/^[0-9]$/.test(k)) seekTo(player, (d * Number(k)) / 10);
    else return;
    e.preventDefault();
  });
}
