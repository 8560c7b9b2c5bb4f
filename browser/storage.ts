/**
 * Storage that never throws: sandboxed iframes and privacy modes refuse
 * localStorage, and the page must not see that as an exception.
 */
export function read(kind: "localStorage" | "sessionStorage", key: string): string | null {
  try {
    return window[kind].getItem(key);
  } catch {
    return null;
  }
}

export function write(kind: "localStorage" | "sessionStorage", key: string, value: string | null): void {
  try {
    if (value === null) window[kind].removeItem(key);
    else window[kind].setItem(key, value);
  } catch {
    /* storage unavailable: the value lives for this page only */
  }
}

/** 128 random bits as hex (crypto.randomUUID needs a secure context, customer pages may be http). */
export function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
