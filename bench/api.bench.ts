/**
 * Authenticated `GET /api/v1/videos/{id}` against a bare `Bun.serve` answering
 * the same JSON, same load generator, alternating rounds in one run; and the same
 * read with REDIS_URL, whose rate-limit hits are reserved in Redis before they are
 * answered (the limit several processes share). Targets: ratio >= 0.6, and the
 * Redis row within 10 % of the one without.
 */
import { join } from "node:path";
import { runLoad, type LoadResult } from "./lib/load.ts";
import { report } from "./lib/report.ts";
import { freePort, startServer } from "./lib/server.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
// Seven short alternating rounds: the machine's speed drifts within a run, and a median of more rounds follows it better.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

// The rate limiter stays on; only its ceiling is raised so the load is measured, not refused.
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const server = await startServer({ RATE_LIMIT_READS_PER_MINUTE: "1000000000" });
const withRedis = await startServer({ RATE_LIMIT_READS_PER_MINUTE: "1000000000", REDIS_URL });

/** A video on `s` and the URL and headers of its read. */
async function videoRead(s: typeof server) {
  const auth = { Authorization: `Bearer ${s.token}` };
  const created = await fetch(`${s.url}/api/v1/videos`, {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json" },
    body: JSON.stringify({ title: "Bench video", tags: ["bench"] }),
  });
  const videoId = ((await created.json()) as { video: { id: number } }).video.id;
  return { url: `${s.url}/api/v1/videos/${videoId}`, headers: auth };
}
const read = await videoRead(server);
const readRedis = await videoRead(withRedis);
const body = await (await fetch(read.url, { headers: read.headers })).text();

const barePort = await freePort();
const bare = Bun.spawn([process.execPath, join(import.meta.dir, "lib", "bare-json-server.ts"), String(barePort)], {
  stdin: new Blob([body]),
  stdout: "inherit",
  stderr: "inherit",
});
await Bun.sleep(300);

const ours: LoadResult[] = [];
const oursRedis: LoadResult[] = [];
const base: LoadResult[] = [];
try {
  await runLoad({ ...read, seconds: 1 });
  await runLoad({ ...readRedis, seconds: 1 });
  await runLoad({ url: `http://127.0.0.1:${barePort}/`, seconds: 1 });
  for (let round = 0; round < ROUNDS; round++) {
    base.push(await runLoad({ url: `http://127.0.0.1:${barePort}/`, seconds: SECONDS }));
    ours.push(await runLoad({ ...read, seconds: SECONDS }));
    oursRedis.push(await runLoad({ ...readRedis, seconds: SECONDS }));
  }
} finally {
  bare.kill();
  await server.stop();
  await withRedis.stop();
}

const median = (xs: LoadResult[]) => [...xs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(xs.length / 2)]!;
const o = median(ours);
const r = median(oursRedis);
const b = median(base);
const ratio = o.requestsPerSecond / b.requestsPerSecond;
const redisRatio = r.requestsPerSecond / o.requestsPerSecond;
await report(
  "api",
  `GET /api/v1/videos/{id} (authenticated, ${body.length} B JSON) vs bare Bun.serve — ${o.generator}, 64 connections, median of ${ROUNDS} x ${SECONDS}s`,
  [
    { target: "Frameline GET /api/v1/videos/{id}", "req/s": Math.round(o.requestsPerSecond), "p50 ms": o.p50Ms, "p99 ms": o.p99Ms, "non-2xx": o.non2xx },
    {
      target: "Frameline, same read, REDIS_URL (shared limits)",
      "req/s": Math.round(r.requestsPerSecond),
      "p50 ms": r.p50Ms,
      "p99 ms": r.p99Ms,
      "non-2xx": r.non2xx,
    },
    { target: "bare Bun.serve, same JSON", "req/s": Math.round(b.requestsPerSecond), "p50 ms": b.p50Ms, "p99 ms": b.p99Ms, "non-2xx": b.non2xx },
    { target: "ratio (ours / bare)", "req/s": `${ratio.toFixed(2)}x`, "p50 ms": "", "p99 ms": "", "non-2xx": "" },
    { target: "ratio (REDIS_URL / without)", "req/s": `${redisRatio.toFixed(2)}x`, "p50 ms": "", "p99 ms": "", "non-2xx": "" },
  ],
  {
    ratio: Number(ratio.toFixed(3)),
    target: ">= 0.6",
    met: ratio >= 0.6,
    redis_ratio: Number(redisRatio.toFixed(3)),
    redis_target: ">= 0.9",
    redis_met: redisRatio >= 0.9,
    generator: o.generator,
  },
);
