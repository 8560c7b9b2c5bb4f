import { validation } from "../errors.ts";

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

/**
 * Integer query parameters are checked here rather than by the schema so a 422 names
 * the parameter (docs/api.md: `buckets`/`per_page` out of range is 422).
 */
export function intParam(raw: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (raw === undefined || raw === "") return fallback;
  const value = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
    throw validation({ [name]: [`The ${name} must be an integer ${range}.`] });
  }
  return value;
}

/** A query parameter from a fixed set (422 naming the parameter otherwise). */
export function oneOfParam<T extends string>(raw: string | undefined, name: string, values: readonly T[], fallback?: T): T {
  if ((raw === undefined || raw === "") && fallback !== undefined) return fallback;
  if (!(values as readonly string[]).includes(raw ?? "")) throw validation({ [name]: [`The ${name} must be one of ${values.join(", ")}.`] });
  return raw as T;
}
