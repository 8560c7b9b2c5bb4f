/** The `Range` header of a GET (RFC 9110 14.2), one range of bytes; players seek with it. */
import type { ByteRange } from "../storage/blob/index.ts";

/** `bytes=a-b`, `bytes=a-`, `bytes=-n`; undefined for anything else (served whole, as RFC 9110 allows). */
export function parseRange(header: string | null, size: number): ByteRange | "unsatisfiable" | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === "" && match[2] === "")) return undefined;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix) };
  }
  const start = Number(match[1]);
  const end = match[2] === "" ? undefined : Number(match[2]);
  if (end !== undefined && end < start) return undefined;
  if (start >= size) return "unsatisfiable";
  return { start, end };
}
