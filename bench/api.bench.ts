/**
 * Authenticated `GET /api/v1/videos/{id}` against a bare `Bun.serve` answering
 * the same JSON, same load generator, alternating rounds in one run.
 * Target (issue 2): ratio >= 0.6.
 */
import { join } from "node:path";
import { runLoad, type LoadResult } from "./lib/load.ts";
import { report } from "./lib/report.ts";
import { freePort, startServer } from "./lib/server.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

// The rate limiter stays on; only its ceiling is raised so the load is measured, not refused.
const server = await startServer({ RATE_LIMIT_READS_PER_MINUTE: "1000000000" });
const auth = { Authorization: `Bearer ${server.token}` };
const created = await fetch(`${server.url}/api/v1/videos`, {
  method: "POST",
  headers: { ...auth, "Content-Type": "application/json" },
  body: JSON.stringify({ title: "Bench video", tags: ["bench"] }),
});
const videoId = ((await created.json()) as { video: { id: number } }).video.id;
const body = await (await fetch(`${server.url}/api/v1/videos/${videoId}`, { headers: auth })).text();

const barePort = await freePort();
const bare = Bun.spawn([process.execPath, join(import.meta.dir, "lib", "bare-json-server.ts"), String(barePort)], {
  stdin: new Blob([body]),
  stdout: "inherit",
  stderr: "inherit",
});
await Bun.sleep(300);

const ours: LoadResult[] = [];
const base: LoadResult[] = [];
try {
  await runLoad({ url: `${server.url}/api/v1/videos/${videoId}`, headers: auth, seconds: 1 });
  await runLoad({ url: `http://127.0.0.1:${barePort}/`, seconds: 1 });
  for (let round = 0; round < ROUNDS; round++) {
    base.push(await runLoad({ url: `http://127.0.0.1:${barePort}/`, seconds: SECONDS }));
    ours.push(await runLoad({ url: `${server.url}/api/v1/videos/${videoId}`, headers: auth, seconds: SECONDS }));
  }
} finally {
  bare.kill();
  await server.stop();
}

const median = (xs: LoadResult[]) => [...xs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(xs.length / 2)]!;
const o = median(ours);
const b = median(base);
const ratio = o.requestsPerSecond / b.requestsPerSecond;
await report(
  "api",
  `GET /api/v1/videos/{id} (authenticated, ${body.length} B JSON) vs bare Bun.serve — ${o.generator}, 64 connections, median of ${ROUNDS} x ${SECONDS}s`,
  [
    { target: "Frameline GET /api/v1/videos/{id}", "req/s": Math.round(o.requestsPerSecond), "p50 ms": o.p50Ms, "p99 ms": o.p99Ms, "non-2xx": o.non2xx },
    { target: "bare Bun.serve, same JSON", "req/s": Math.round(b.requestsPerSecond), "p50 ms": b.p50Ms, "p99 ms": b.p99Ms, "non-2xx": b.non2xx },
    { target: "ratio (ours / bare)", "req/s": `${ratio.toFixed(2)}x`, "p50 ms": "", "p99 ms": "", "non-2xx": "" },
  ],
  { ratio: Number(ratio.toFixed(3)), target: ">= 0.6", met: ratio >= 0.6, generator: o.generator },
);
