/** Fallback load generator (a separate process): N keep-alive fetch loops for D seconds. */
import type { LoadOptions } from "./load.ts";

const opts = JSON.parse(process.argv[2]!) as LoadOptions;
const deadline = performance.now() + (opts.seconds ?? 5) * 1000;
const latencies: number[] = [];
let non2xx = 0;

async function loop() {
  while (performance.now() < deadline) {
    const start = performance.now();
    const response = await fetch(opts.url, { method: opts.method ?? "GET", headers: opts.headers, body: opts.body });
    await response.arrayBuffer();
    latencies.push(performance.now() - start);
    if (response.status >= 300) non2xx++;
  }
}

const started = performance.now();
await Promise.all(Array.from({ length: opts.connections ?? 64 }, loop));
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
process.stdout.write(JSON.stringify({ requestsPerSecond: latencies.length / seconds, p50Ms: at(50), p99Ms: at(99), requests: latencies.length, non2xx }));
