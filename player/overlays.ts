export interface OverlayOptions {
  /** Said through the live region when it is shown. */
  say?: string;
  /** Takes focus when shown (a dialog the viewer must answer). */
  modal?: boolean;
}

/** PlayerApi.overlay: puts an element on the stage at a rank (overlay-ranks.ts); returns its release. */
export type Overlay = (el: HTMLElement, rank: number, options?: OverlayOptions) => () => void;

interface Entry extends OverlayOptions {
  el: HTMLElement;
  rank: number;
}

/**
 * The stage over the video holds one overlay at a time (player/README.md "Overlays").
 * Every part that draws over the video (the features, the resume prompt, the error
 * overlay) puts its element on the stage with its rank: the highest shown, the others
 * wait hidden (`fl-wait`) and come back, in rank order, when it is released. The live
 * region says the one shown; focus follows it, into a modal one, or into the next one
 * when the one that gave way had it (a part releases its element before removing it,
 * so its focus is still seen there).
 */
export function stage(root: HTMLElement, announce: (text: string) => void): Overlay {
  const entries: Entry[] = [];
  let shown: Entry | undefined;
  const update = () => {
    // Read before hiding: a hidden element loses focus.
    const had = !!shown?.el.contains(document.activeElement);
    // An element taken off the page without its release no longer holds the stage.
    for (let i = entries.length; i--; ) if (!entries[i]!.el.isConnected) entries.splice(i, 1);
    // Stable: within a rank, the first to ask.
    entries.sort((a, b) => a.rank - b.rank);
    const top = entries[0];
    for (const e of entries) e.el.classList.toggle("fl-wait", e !== top);
    if (top === shown) return;
    shown = top;
    if (!top) return had && root.focus({ preventScroll: true });
    if (top.say) announce(top.say);
    if (top.modal || had) (top.el.querySelector<HTMLElement>("input,button,a[href]") || root).focus({ preventScroll: true });
  };
  return (el, rank, options) => {
    const entry = { el, rank, ...options };
    entries.push(entry);
    update();
    return () => {
      const i = entries.indexOf(entry);
      if (i < 0) return;
      entries.splice(i, 1);
      el.classList.remove("fl-wait");
      update();
    };
  };
}
