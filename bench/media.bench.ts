/**
 * A segment GET at the media host, public against signed (README "Playback
 * protection"): the same 188 KB segment, one video public, the other with allowed
 * origins and signed URLs, each request carrying the page's Origin and, for the
 * signed one, a token. The server is this process (the app on Bun.serve); wrk loads
 * it from outside. Server CPU per request is this process's CPU over the requests
 * answered, alternating rounds. Target: signed ≤ 1.10x the public one's CPU. A third
 * row asks for the public segment with an ignored query as long as the token, to
 * tell the cost of the longer request line from the cost of the checks. A fourth asks
 * with a token carrying `accessRules` (a country rule, so each request looks the
 * viewer's IP up in the country database): the cost of the rules on top of the token.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../server/config.ts";
import { createDeps } from "../server/runtime.ts";
import { createApp } from "../server/app.ts";
import { createVideo, signedToken, updateVideo } from "../server/api/videos/service.ts";
import { runLoad, type LoadResult } from "./lib/load.ts";
import { report } from "./lib/report.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const dataDir = await mkdtemp(join(tmpdir(), "frameline-media-bench-"));
const deps = await createDeps(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "warn" }));
const app = createApp(deps, { adminKey: "fla_bench_admin_key_0123456789abcdef" });
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => app.handle(req) });
const base = `http://127.0.0.1:${server.port}/media/`;

const [ws] =
  await deps.sql`INSERT INTO workspaces (code, name, legacy_key_hash) VALUES (${crypto.randomUUID()}, 'bench', ${crypto.randomUUID().replaceAll("-", "").padEnd(64, "0")}) RETURNING id`;
const segment = new Uint8Array(188 * 1000).map((_, i) => (i * 31) % 256);
/** A video with one segment in the media store; its key. */
async function withSegment(protect: boolean): Promise<{ key: string; token?: string; ruled?: string }> {
  const video = await createVideo(deps, ws!.id, { title: protect ? "Signed" : "Public" });
  const key = `videos/${video.code}/landscape/1/360p/seg_000.ts`;
  await deps.blobs.media.put(key, segment);
  if (!protect) return { key };
  const row = await updateVideo(deps, ws!.id, video.id, { allowed_origins: ["shop.example.com"], require_signed_urls: true });
  // A rule that matches nobody here: every request is looked up and let through.
  const ruled = (await signedToken(deps, row, { accessRules: [{ type: "ip.geoip.country", action: "block", country: ["KP"] }] })).token;
  return { key, token: (await signedToken(deps, row, {})).token, ruled };
}
const pub = await withSegment(false);
const sig = await withSegment(true);
const headers = { Origin: "https://shop.example.com" };
const publicLoad = { url: `${base}${pub.key}`, headers };
const signedLoad = { url: `${base}${sig.key}?token=${sig.token}`, headers };
// The public segment with a query as long as the token: what the longer request line alone costs.
const longLoad = { url: `${base}${pub.key}?token=${sig.token}`, headers };
const ruledLoad = { url: `${base}${sig.key}?token=${sig.ruled}`, headers };

/** Load and this process's CPU (user + system) per answered request, in µs. */
async function measured(opts: typeof publicLoad): Promise<LoadResult & { cpuUs: number }> {
  const before = process.cpuUsage();
  const result = await runLoad({ ...opts, seconds: SECONDS });
  const used = process.cpuUsage(before);
  return { ...result, cpuUs: (used.user + used.system) / Math.max(1, result.requests) };
}

const publicRuns: Awaited<ReturnType<typeof measured>>[] = [];
const signedRuns: typeof publicRuns = [];
const longRuns: typeof publicRuns = [];
const ruledRuns: typeof publicRuns = [];
try {
  await runLoad({ ...publicLoad, seconds: 1 });
  await runLoad({ ...signedLoad, seconds: 1 });
  for (let round = 0; round < ROUNDS; round++) {
    publicRuns.push(await measured(publicLoad));
    signedRuns.push(await measured(signedLoad));
    longRuns.push(await measured(longLoad));
    ruledRuns.push(await measured(ruledLoad));
  }
} finally {
  server.stop(true);
  await deps.close();
  await rm(dataDir, { recursive: true, force: true });
}

const median = (xs: typeof publicRuns) => [...xs].sort((a, b) => a.cpuUs - b.cpuUs)[Math.floor(xs.length / 2)]!;
const p = median(publicRuns);
const s = median(signedRuns);
const l = median(longRuns);
const r = median(ruledRuns);
const ratio = s.cpuUs / p.cpuUs;
const row = (target: string, r: typeof p) => ({
  target,
  "server CPU µs/req": Math.round(r.cpuUs),
  "req/s": Math.round(r.requestsPerSecond),
  "p50 ms": r.p50Ms,
  "p99 ms": r.p99Ms,
  "non-2xx": r.non2xx,
});
await report(
  "media",
  `GET of a 188 KB segment at /media/: public vs allowed origin + signed token — ${p.generator}, 64 connections, median of ${ROUNDS} x ${SECONDS}s`,
  [
    row("signed (Origin checked, token verified)", s),
    row("public (same segment, same Origin header)", p),
    row("public, with an ignored query as long as the token", l),
    row("signed, the token with accessRules (a country rule)", r),
    { target: "ratio (signed / public CPU per request)", "server CPU µs/req": `${ratio.toFixed(2)}x` },
    { target: "ratio (signed / public with as long a URL)", "server CPU µs/req": `${(s.cpuUs / l.cpuUs).toFixed(2)}x` },
    { target: "ratio (signed with accessRules / public CPU per request)", "server CPU µs/req": `${(r.cpuUs / p.cpuUs).toFixed(2)}x` },
  ],
  {
    ratio: Number(ratio.toFixed(3)),
    same_url_length_ratio: Number((s.cpuUs / l.cpuUs).toFixed(3)),
    access_rules_ratio: Number((r.cpuUs / p.cpuUs).toFixed(3)),
    target: "<= 1.10",
    met: ratio <= 1.1,
    generator: p.generator,
  },
);
