/** A numeric path id; anything else resolves to nothing (the route then answers 404). */
export function parseId(raw: string): number | undefined {
  if (!/^[1-9]\d{0,15}$/.test(raw)) return undefined;
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : undefined;
}

/**
 * The path of a request URL without building a URL object: global hooks run on
 * every request of the process, so they must stay cheap.
 */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = url.indexOf("?", start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}
