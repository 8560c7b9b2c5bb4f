import type { MenuItem, PlayerApi } from "../types.ts";
import { h, listen } from "../dom.ts";
import { attr, type Teardown } from "../controls/control.ts";
import { liveRegion } from "../controls/live-region.ts";
import { menus, type Menus } from "../controls/menus.ts";
import { playButton } from "../controls/play-button.ts";
import { progressBar } from "../controls/progress-bar.ts";
import { timeDisplay } from "../controls/time-display.ts";
import { speedMenu } from "../controls/speed-menu.ts";
import { pipButton } from "../controls/pip-button.ts";
import { muteButton } from "../controls/mute-button.ts";
import { fullscreenButton } from "../controls/fullscreen-button.ts";
import { qualityMenu } from "../controls/quality-menu.ts";
import { errorOverlay } from "../controls/error-overlay.ts";
import { videoGestures } from "../controls/video-gestures.ts";
import { keyboard } from "../controls/keyboard.ts";

/**
 * The themed chrome, composed of the controls in player/controls/ (one per
 * file): the big play button over the poster, and a control row with
 * play/pause, the progress bar, time, speed and quality menus, picture in
 * picture, mute and fullscreen (controls_options); the keyboard map, the
 * gestures on the picture, the live region and the error overlay. Here: the
 * row's order, the root as a focusable region and the idle fade. Plain mode
 * keeps only the big play button and hands over to the browser's native
 * controls once playing.
 */
export class ControlsController {
  /** PlayerApi.announce: says a text through the player's polite live region. */
  readonly announce: (text: string) => void;
  private menus: Menus;
  private off: (Teardown | undefined)[] = [];

  constructor(player: PlayerApi, big: HTMLButtonElement) {
    const root = player.root;
    const announce = (this.announce = liveRegion(root));
    const m = (this.menus = menus(player));
    // Built in the row's order; a button goes before the first of fullscreen and mute, so the row reads
    // play, time, speed, pip, fullscreen, mute, and the features' buttons land before fullscreen.
    const off = this.off;
    off.push(playButton(player, big), progressBar(player), timeDisplay(player));
    if (player.controls) h("span", "fl-grow", player.controls);
    off.push(speedMenu(player, m), pipButton(player), muteButton(player), fullscreenButton(player));
    root.tabIndex = 0;
    attr(root, "role", "region");
    attr(root, "aria-label", "Video player: " + (player.config.video.title || "video"));
    // Controls fade after 2.5 s without pointer movement (or a key) while playing.
    let idle: ReturnType<typeof setTimeout> | undefined;
    const wake = () => {
      root.classList.remove("fl-idle");
      clearTimeout(idle);
      idle = setTimeout(() => root.classList.add("fl-idle"), 2500);
    };
    off.push(
      () => clearTimeout(idle),
      listen(root, "pointermove", wake),
      listen(root, "pointerdown", wake),
      listen(root, "keydown", wake),
      keyboard(player, m, announce),
      videoGestures(player),
      errorOverlay(player),
      qualityMenu(player, m),
    );
  }

  /** PlayerApi.menu: a button that opens a menu of radio items, operable by keyboard (arrows, Home, End, Esc). */
  menu(cls: string, label: string, items: () => MenuItem[], before?: Element | null): HTMLButtonElement | null {
    return this.menus.menu(cls, label, items, before);
  }

  destroy(): void {
    this.menus.destroy();
    for (const f of this.off) f?.();
  }
}
