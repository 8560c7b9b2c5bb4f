/** p50 and p95 of `runs` runs of `run` after `warmups` untimed ones, in ms. */
export async function timed(run: () => Promise<unknown>, warmups: number, runs: number): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < warmups; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await run();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const pick = (p: number) => samples[Math.min(samples.length - 1, Math.ceil(p * samples.length) - 1)]!;
  return { p50: pick(0.5), p95: pick(0.95) };
}
