/**
 * Helpers the sales features share. They are bundled into the per-video entry
 * (features never import core code), once however many features use them.
 */
import type { PlayerApi } from "../../types.ts";

/** A feature's stylesheet, injected once per page: its CSS ships with its code, not in the core. */
export function style(id: string, css: string): void {
  if (document.getElementById(id)) return;
  const el = document.createElement("style");
  el.id = id;
  el.textContent = css;
  document.head.appendChild(el);
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
