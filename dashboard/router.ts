/** A small history router for the client routes under /dashboard. */
import { useEffect, useState } from "preact/hooks";

export const BASE = "/dashboard";
const listeners = new Set<() => void>();
/** True once the user has moved inside the app (page headings take focus only then, not on first load). */
export let navigated = false;

export function navigate(path: string, replace = false): void {
  const url = path.startsWith(BASE) ? path : BASE + path;
  if (url === location.pathname + location.search) return;
  history[replace ? "replaceState" : "pushState"](null, "", url);
  navigated = true;
  listeners.forEach((l) => l());
}

addEventListener("popstate", () => {
  navigated = true;
  listeners.forEach((l) => l());
});

/** The path below /dashboard ("/" at the root) and the query. */
export function useRoute(): { path: string; query: URLSearchParams } {
  const [, tick] = useState(0);
  useEffect(() => {
    const l = () => tick((n) => n + 1);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  const path = location.pathname.slice(BASE.length) || "/";
  return { path: path.length > 1 ? path.replace(/\/$/, "") : path, query: new URLSearchParams(location.search) };
}

/** Matches "/videos/:id/settings" against a path; returns params or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const p = pattern.split("/");
  const s = path.split("/");
  if (p.length !== s.length) return undefined;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(":")) out[p[i].slice(1)] = decodeURIComponent(s[i]);
    else if (p[i] !== s[i]) return undefined;
  }
  return out;
}
