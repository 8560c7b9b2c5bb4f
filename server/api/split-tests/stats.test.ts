import { describe, expect, test } from "bun:test";
import { compare, decide, MIN_TRIALS, normalCdf, normalQuantile } from "./stats.ts";

/** One variation's tally: trials and successes. */
const arm = (trials: number, successes: number) => ({ trials, successes });

describe("normal distribution", () => {
  test("Φ and Φ⁻¹ at known points", () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-2.326347874)).toBeCloseTo(0.01, 6);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.9875)).toBeCloseTo(2.241403, 5);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232, 5);
  });
});

describe("compare", () => {
  test("difference, 95 % interval, pooled p-value and probability to beat, by hand", () => {
    // a: 20/200 = 0.10, b: 40/200 = 0.20. Unpooled SE = sqrt(.1*.9/200 + .2*.8/200) = 0.035355;
    // pooled p = 0.15, SE = sqrt(.15*.85*(2/200)) = 0.035707, z = 2.8006, two-sided p = 0.0051.
    const c = compare(arm(200, 20), arm(200, 40))!;
    expect(c.difference).toBeCloseTo(0.1, 10);
    expect(c.ci_low).toBeCloseTo(0.1 - 1.959964 * 0.0353553, 5);
    expect(c.ci_high).toBeCloseTo(0.1 + 1.959964 * 0.0353553, 5);
    expect(c.p_value).toBeCloseTo(0.0051, 4);
    expect(c.probability_to_beat).toBeCloseTo(normalCdf(0.1 / 0.0353553), 6);
    expect(c.probability_to_beat).toBeGreaterThan(0.99);
    // The other way round it is the mirror image.
    const back = compare(arm(200, 40), arm(200, 20))!;
    expect(back.probability_to_beat).toBeCloseTo(1 - c.probability_to_beat, 6);
    expect(back.p_value).toBeCloseTo(c.p_value, 10);
  });

  test("no trials: nothing to compare", () => {
    expect(compare(arm(0, 0), arm(10, 1))).toBeUndefined();
  });
});

// The raw-count rule's cases, restated on rates.
describe("decide", () => {
  test("undecided below the minimum sample, however lopsided", () => {
    const d = decide([
      { trials: MIN_TRIALS - 1, successes: MIN_TRIALS - 1 },
      { trials: MIN_TRIALS, successes: 0 },
    ]);
    expect(d.sample_reached).toBe(false);
    expect(d.leader).toBe(0);
    expect(d.winner).toBeUndefined();
  });

  test("undecided while too few successes are expected for the normal approximation", () => {
    // Pooled rate 3/400: 200 * 0.0075 = 1.5 expected successes per variation, under 5.
    expect(decide([arm(200, 0), arm(200, 3)])).toMatchObject({ sample_reached: false, winner: undefined });
  });

  test("decided when the leader's rate beats the runner-up's at 95 %", () => {
    // z = 2.80 (above): b wins.
    expect(decide([arm(200, 20), arm(200, 40)])).toMatchObject({ sample_reached: true, leader: 1, winner: 1 });
  });

  test("undecided when the gap is within chance", () => {
    // 25/200 against 20/200: pooled z = 0.79.
    expect(decide([arm(200, 25), arm(200, 20)])).toMatchObject({ sample_reached: true, leader: 0, winner: undefined });
  });

  test("rates, not raw counts: more sales from more traffic do not win", () => {
    // a sold 100 to 1000 viewers (10 %), b 40 to 200 (20 %): b is the winner though a has more sales.
    expect(decide([arm(1000, 100), arm(200, 40)]).winner).toBe(1);
  });

  test("with three variations each comparison must pass α = 0.025", () => {
    // 30/300 against 48/300: pooled z = 2.18, significant at 0.05 but not at 0.025.
    const two = decide([arm(300, 30), arm(300, 48)]);
    expect(two.winner).toBe(1);
    const three = decide([arm(300, 30), arm(300, 48), arm(300, 20)]);
    expect(three.alpha).toBeCloseTo(0.025, 10);
    expect(three.leader).toBe(1);
    expect(three.winner).toBeUndefined();
  });

  test("a tie for first, or a single variation, is never a winner", () => {
    expect(decide([arm(500, 100), arm(500, 100)]).winner).toBeUndefined();
    expect(decide([arm(5000, 500)]).winner).toBeUndefined();
  });
});
