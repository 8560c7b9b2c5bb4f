/**
 * The statistics of a split test's goal (README "Split tests"): each variation is a
 * binomial arm, `successes` of `trials` sessions (plays of impressions, buyers of
 * plays, CTA clickers of impressions). Rates are compared with the two-proportion
 * z-test, so a variation is judged by its rate, never by raw counts: a variation
 * that got more traffic does not win by having more sales.
 *
 * The winner rule (`decide`): every variation has at least MIN_TRIALS trials and,
 * under the pooled rate, at least MIN_EXPECTED expected successes and failures
 * (where the normal approximation holds); the variation with the highest rate then
 * wins when its two-sided pooled z-test against every other variation is
 * significant at 95 % familywise (Bonferroni: each at α = 0.05 / (k − 1); with two
 * variations exactly 95 %).
 */

export interface Arm {
  trials: number;
  successes: number;
}

export const CONFIDENCE = 0.95;
/** Trials every variation needs before a winner can be declared. */
export const MIN_TRIALS = 100;
/** Expected successes and failures per variation under the pooled rate (the z-test's validity condition). */
export const MIN_EXPECTED = 5;

/** Φ(z), the standard normal CDF (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Φ⁻¹(p) (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  const poly = (k: number[], x: number) => k.reduce((acc, coeff) => acc * x + coeff, 0);
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return poly(c, q) / (poly(d, q) * q + 1);
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (poly(a, r) * q) / (poly(b, r) * r + 1);
}

export const rateOf = (arm: Arm): number | null => (arm.trials > 0 ? arm.successes / arm.trials : null);

export interface Comparison {
  /** Rate of b minus rate of a. */
  difference: number;
  /** The 95 % confidence interval of the difference (unpooled standard error). */
  ci_low: number;
  ci_high: number;
  /** Two-sided p-value of the pooled two-proportion z-test. */
  p_value: number;
  /**
   * P(b's true rate > a's) under the same normal approximation with flat priors:
   * Φ(difference / unpooled standard error).
   */
  probability_to_beat: number;
}

/** b against a; undefined while either has no trials. */
export function compare(a: Arm, b: Arm): Comparison | undefined {
  if (a.trials === 0 || b.trials === 0) return undefined;
  const pa = a.successes / a.trials;
  const pb = b.successes / b.trials;
  const difference = pb - pa;
  const se = Math.sqrt((pa * (1 - pa)) / a.trials + (pb * (1 - pb)) / b.trials);
  const pooled = (a.successes + b.successes) / (a.trials + b.trials);
  const sePooled = Math.sqrt(pooled * (1 - pooled) * (1 / a.trials + 1 / b.trials));
  const z = sePooled > 0 ? difference / sePooled : 0;
  const z95 = normalQuantile(1 - (1 - CONFIDENCE) / 2);
  const sign = difference > 0 ? 1 : difference < 0 ? 0 : 0.5;
  return {
    difference,
    ci_low: difference - z95 * se,
    ci_high: difference + z95 * se,
    p_value: Math.min(1, 2 * (1 - normalCdf(Math.abs(z)))),
    probability_to_beat: se > 0 ? normalCdf(difference / se) : sign,
  };
}

export interface Decision {
  /** Every variation has the minimum sample (MIN_TRIALS, MIN_EXPECTED). */
  sample_reached: boolean;
  /** Index of the variation with the highest rate (undefined on a tie for first or without trials). */
  leader: number | undefined;
  /** The leader, when it beats every other variation significantly (the rule above). */
  winner: number | undefined;
  /** The significance level each of the leader's comparisons must pass. */
  alpha: number;
}

export function decide(arms: Arm[]): Decision {
  const alpha = (1 - CONFIDENCE) / Math.max(1, arms.length - 1);
  const trials = arms.reduce((n, a) => n + a.trials, 0);
  const pooled = trials ? arms.reduce((n, a) => n + a.successes, 0) / trials : 0;
  const sampleReached =
    arms.length >= 2 && arms.every((a) => a.trials >= MIN_TRIALS && a.trials * pooled >= MIN_EXPECTED && a.trials * (1 - pooled) >= MIN_EXPECTED);
  const rates = arms.map((a) => rateOf(a) ?? -1);
  const top = Math.max(...rates);
  const leaders = rates.flatMap((r, i) => (r === top && r >= 0 ? [i] : []));
  const leader = leaders.length === 1 ? leaders[0] : undefined;
  let winner: number | undefined;
  if (sampleReached && leader !== undefined) {
    const beatsAll = arms.every((arm, i) => i === leader || compare(arm, arms[leader]!)!.p_value < alpha);
    if (beatsAll) winner = leader;
  }
  return { sample_reached: sampleReached, leader, winner, alpha };
}
