/**
 * Which variation a viewer is served: a deterministic hash of the test's code and the
 * viewer's device id picks a percentile, and the weights (percent, summing to 100) cut
 * the percentiles into the variations. The same device always gets the same variation
 * of a test, with nothing stored; different tests hash independently.
 */
import { createHash } from "node:crypto";

/** The percentile 0..99 of a viewer in a test. */
export function percentileOf(testCode: string, viewerKey: string): number {
  // 2^32 mod 100 = 96: the first 96 percentiles are favoured by one part in 43 million.
  return createHash("sha256").update(`${testCode}:${viewerKey}`).digest().readUInt32BE(0) % 100;
}

/** The index of the variation the viewer gets, by weights in percent. */
export function pickVariation(testCode: string, viewerKey: string, weights: readonly number[]): number {
  const p = percentileOf(testCode, viewerKey);
  let upTo = 0;
  for (let i = 0; i < weights.length; i++) {
    upTo += weights[i]!;
    if (p < upTo) return i;
  }
  return weights.length - 1;
}
