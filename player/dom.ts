/** Creates an element with a class (and text), appended to `parent` when given. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, parent?: Node | null, text?: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  el.className = cls;
  if (text) el.textContent = text;
  parent?.appendChild(el);
  return el;
}

/** Adds a DOM listener and returns its removal (controllers collect these for destroy). */
export function listen(target: EventTarget, type: string, fn: (e: Event) => void, opts?: AddEventListenerOptions): () => void {
  target.addEventListener(type, fn, opts);
  return () => target.removeEventListener(type, fn, opts);
}

/** m:ss or h:mm:ss. */
export function clock(s: number): string {
  s = Math.max(0, Math.floor(s || 0));
  const m = Math.floor(s / 60);
  const pad = (n: number) => (n < 10 ? "0" : "") + n;
  return m >= 60 ? `${Math.floor(m / 60)}:${pad(m % 60)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}
