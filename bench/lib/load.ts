/**
 * One load generator for both sides of a comparison. wrk (C, one thread, 64
 * connections) when installed, because a generator in the same runtime as the
 * server under test would cap both sides alike; otherwise a Bun fallback in a
 * separate process, named in the output so nobody mistakes one for the other.
 */
import { join } from "node:path";
import { tmpdir } from "node:os";

export interface LoadResult {
  generator: "wrk" | "bun-fetch";
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
}

export interface LoadOptions {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  seconds?: number;
  connections?: number;
}

export function hasWrk(): boolean {
  return Bun.which("wrk") !== null;
}

function toMs(value: string, unit: string): number {
  const n = Number(value);
  return unit === "us" ? n / 1000 : unit === "s" ? n * 1000 : n;
}

async function runWrk(opts: LoadOptions): Promise<LoadResult> {
  const script = join(tmpdir(), `frameline-wrk-${process.pid}-${Math.random().toString(36).slice(2)}.lua`);
  const lines = [`wrk.method = ${JSON.stringify(opts.method ?? "GET")}`];
  for (const [k, v] of Object.entries(opts.headers ?? {})) lines.push(`wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`);
  if (opts.body !== undefined) lines.push(`wrk.body = ${JSON.stringify(opts.body)}`);
  await Bun.write(script, lines.join("\n") + "\n");
  const proc = Bun.spawn(["wrk", "-t1", `-c${opts.connections ?? 64}`, `-d${opts.seconds ?? 5}s`, "--latency", "-s", script, opts.url], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  await Bun.file(script)
    .delete()
    .catch(() => {});
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const pct = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)`, "m").exec(out);
    return m ? toMs(m[1], m[2]) : NaN;
  };
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  return { generator: "wrk", requestsPerSecond: rps, p50Ms: pct("50"), p99Ms: pct("99"), requests, non2xx };
}

async function runBunFetch(opts: LoadOptions): Promise<LoadResult> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "fetch-load.ts"), JSON.stringify(opts)], { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return { generator: "bun-fetch", ...(JSON.parse(out) as Omit<LoadResult, "generator">) };
}

export function runLoad(opts: LoadOptions): Promise<LoadResult> {
  return hasWrk() ? runWrk(opts) : runBunFetch(opts);
}
