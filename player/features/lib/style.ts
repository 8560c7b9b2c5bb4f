/**
 * Helpers the sales features share. They are bundled into the per-video entry
 * (features never import core code), once however many features use them.
 */
import type { OverlayOptions } from "../../overlays.ts";
import type { PlayerApi } from "../../types.ts";

/** A feature's stylesheet, injected once per page: its CSS ships with its code, not in the core. */
export function style(id: string, css: string): void {
  if (document.getElementById(id)) return;
  const el = document.createElement("style");
  el.id = id;
  el.textContent = css;
  document.head.appendChild(el);
}

/** The CSS of an icon button `.cls` masked by a 24x24 SVG path in the icon colour, as the core's own buttons. */
export function icon(cls: string, path: string): string {
  const url = `url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24'%3E%3Cpath d='${path}'/%3E%3C/svg%3E") center/20px no-repeat`;
  return `.${cls}{background:var(--fl-icon);-webkit-mask:${url};mask:${url}}`;
}

/** An element with a class (and text), appended to `parent` when given. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, parent?: Node | null, text?: string | null): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  e.className = cls;
  if (text) e.textContent = text;
  parent?.appendChild(e);
  return e;
}

/** A link that opens in a new tab, only for web URLs (a setting must never become a `javascript:` link on the page). */
export function link(parent: Node, cls: string, url: string | null | undefined, text: string, onClick: () => void): HTMLAnchorElement | null {
  if (!url || !/^https?:\/\//i.test(url)) return null;
  const a = el("a", cls, parent, text);
  a.href = url;
  a.target = "_blank";
  a.rel = "noopener";
  a.onclick = onClick;
  return a;
}

/** Adds DOM listeners and returns one removal for all of them. */
export function on(target: EventTarget, types: string, fn: (e: Event) => void): () => void {
  const list = types.split(" ");
  for (const t of list) target.addEventListener(t, fn);
  return () => list.forEach((t) => target.removeEventListener(t, fn));
}

/** True while the container video plays (not a playlist item): the sales features belong to it. */
export const own = (player: PlayerApi): boolean => player.source.code === player.config.video.code;

/**
 * Runs each cue once, when playback of the container video first reaches its
 * time (also when a seek lands past it). A cue at 0 waits for playback to start.
 */
export function onReach(player: PlayerApi, cues: { time: number; run(): void }[]): () => void {
  const left = cues.filter((c) => c.time >= 0);
  const video = player.video;
  return on(video, "timeupdate playing seeked", () => {
    if (!own(player) || (video.paused && video.currentTime === 0)) return;
    const t = video.currentTime;
    for (let i = 0; i < left.length; )
      if (t >= left[i]!.time) left.splice(i, 1)[0]!.run();
      else i++;
  });
}

/** Pauses made by the player (a hold, a pause action, a hidden tab), not asked by the viewer; the next `pause` event is one. */
const playerPauses = new WeakSet<PlayerApi>();

/** Pauses for the player's own reasons: the lead form's "pause" trigger waits for the viewer's own pause. */
export function pauseForPlayer(player: PlayerApi): void {
  if (player.video.paused) return;
  playerPauses.add(player);
  player.video.pause();
}

/** Whether the `pause` just heard was the player's own (pauseForPlayer); forgets it. */
export const pausedByPlayer = (player: PlayerApi): boolean => playerPauses.delete(player);

const holds = new WeakMap<PlayerApi, number>();

/**
 * Pauses and holds playback (a gate, a form, a question) until the returned release:
 * a play asked meanwhile (keyboard, page script) is undone. Released with `resume`,
 * playback goes on once no other hold is left (a quiz due while the lead form was
 * open keeps it paused).
 */
export function hold(player: PlayerApi): (resume?: boolean) => void {
  const video = player.video;
  holds.set(player, held(player) + 1);
  pauseForPlayer(player);
  const off = on(video, "play", () => pauseForPlayer(player));
  let done = false;
  return (resume) => {
    if (done) return;
    done = true;
    off();
    holds.set(player, held(player) - 1);
    if (resume && !held(player)) player.play();
  };
}

/** How many holds are on playback now. */
export const held = (player: PlayerApi): number => holds.get(player) ?? 0;

/**
 * The one element a feature keeps on the overlay stage (player/README.md "Overlays"):
 * `show` puts an element up at its rank in place of the one before; `hide` releases
 * the stage before removing the element, so focus held there is still seen.
 */
export function overlaySlot(player: PlayerApi): { show(el: HTMLElement, rank: number, options?: OverlayOptions): void; hide(): void } {
  let shown: HTMLElement | null = null;
  let release = () => {};
  const hide = () => {
    release();
    release = () => {};
    shown?.remove();
    shown = null;
  };
  return {
    show(el, rank, options) {
      hide();
      shown = el;
      release = player.overlay(el, rank, options);
    },
    hide,
  };
}
