/**
 * Watched ranges as the player sends them (a range closes at every pause, seek, end
 * and heartbeat flush) turned into what a seller reads: the stretches a session
 * watched, and how many times each part of the video was watched (docs/api.md "Viewers").
 */

/** [from_s, to_s), seconds of the video. */
export type Range = [number, number];

/** A range that starts where the previous one ended (within this gap) continues it: a heartbeat split it. */
const CONTINUES_S = 0.25;

/** Joins the pieces of one stretch of playback, keeping the order they were watched in. */
export function joinRanges(ranges: Range[]): Range[] {
  const out: Range[] = [];
  for (const [from, to] of ranges) {
    const last = out[out.length - 1];
    if (last && Math.abs(from - last[1]) <= CONTINUES_S && to >= last[1]) last[1] = to;
    else out.push([from, to]);
  }
  return out;
}

/**
 * How many times each of `buckets` equal parts of the video was watched: a range
 * counts for a part when it covers the part's middle, so a range that stops a few
 * tenths of a second into a part does not claim it. 0 = never watched (skipped).
 */
export function heatmapCounts(ranges: Range[], durationS: number, buckets: number): number[] {
  const counts = new Array<number>(buckets).fill(0);
  if (!(durationS > 0)) return counts;
  const width = durationS / buckets;
  for (const [from, to] of ranges) {
    const first = Math.max(0, Math.ceil(from / width - 0.5));
    const last = Math.min(buckets - 1, Math.ceil(to / width - 0.5) - 1);
    for (let i = first; i <= last; i++) counts[i]! += 1;
  }
  return counts;
}

/** The share of the video (0 to 100, whole percent) reached by the furthest range end. */
export function furthestPercent(furthestS: number, durationS: number): number {
  if (!(durationS > 0) || !(furthestS > 0)) return 0;
  return Math.min(100, Math.round((furthestS / durationS) * 100));
}
