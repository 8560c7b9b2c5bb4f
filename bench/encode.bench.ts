/**
 * Upload-to-ready for a generated 60 s 1080p H.264/AAC clip through `npm start`
 * (single-shot upload, in-process encoder, status polled), against bare ffmpeg
 * producing the same renditions (the same ladder command line, plus the poster)
 * on the same file. One round each by default: each side takes a minute or more.
 * Target (issue 3): ratio (ours / bare) <= 1.15.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hlsArgs, planLadder, posterArgs } from "../server/domains/encoding/ladder.ts";
import { probe } from "../server/domains/encoding/probe.ts";
import { report } from "./lib/report.ts";
import { startServer } from "./lib/server.ts";

const SECONDS = Number(process.env.BENCH_CLIP_SECONDS ?? 60);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);

async function run(cmd: string[]): Promise<void> {
  const proc = Bun.spawn(cmd, { stdout: "ignore", stderr: "pipe" });
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${cmd[0]} failed: ${err}`);
}

const work = await mkdtemp(join(tmpdir(), "frameline-encode-bench-"));
const clip = join(work, "clip-1080p.mp4");
console.log(`generating a ${SECONDS} s 1080p clip...`);
await run([
  ...`ffmpeg -hide_banner -v error -y -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=${SECONDS} -f lavfi -i sine=frequency=440:duration=${SECONDS} -c:v libx264 -preset veryfast -pix_fmt yuv420p -g 60 -c:a aac -shortest`.split(
    " ",
  ),
  clip,
]);

async function bare(): Promise<number> {
  const out = join(work, `bare-${Math.random().toString(36).slice(2)}`);
  const start = performance.now();
  const probed = await probe("ffprobe", clip);
  const plan = planLadder(probed);
  await run(["ffmpeg", ...hlsArgs(clip, out, plan)]);
  await run(["ffmpeg", ...posterArgs(clip, join(out, "poster.jpg"), plan, 1)]);
  const ms = performance.now() - start;
  await rm(out, { recursive: true, force: true });
  return ms;
}

const server = await startServer({ RATE_LIMIT_WRITES_PER_MINUTE: "100000", RATE_LIMIT_READS_PER_MINUTE: "100000" });
const auth = { Authorization: `Bearer ${server.token}` };

async function ours(): Promise<number> {
  const created = await fetch(`${server.url}/api/v1/videos`, {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json" },
    body: JSON.stringify({ title: "encode bench" }),
  });
  const id = ((await created.json()) as { video: { id: number } }).video.id;
  const form = new FormData();
  form.append("file", Bun.file(clip), "clip-1080p.mp4");
  const start = performance.now();
  const res = await fetch(`${server.url}/api/v1/videos/${id}/upload`, { method: "POST", headers: auth, body: form });
  if (res.status !== 202) throw new Error(`upload: ${res.status} ${await res.text()}`);
  const deadline = Date.now() + 15 * 60_000;
  while (Date.now() < deadline) {
    const status = (await (await fetch(`${server.url}/api/v1/videos/${id}/status`, { headers: auth })).json()) as { status: string; orientations: unknown };
    if (status.status === "ready") return performance.now() - start;
    if (status.status === "error") throw new Error(`encode failed: ${JSON.stringify(status.orientations)}`);
    await Bun.sleep(100);
  }
  throw new Error("not ready after 15 minutes");
}

const times = { ours: [] as number[], bare: [] as number[] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    times.bare.push(await bare());
    times.ours.push(await ours());
  }
} finally {
  await server.stop();
  await rm(work, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const o = median(times.ours);
const b = median(times.bare);
await report(
  "encode",
  `Upload to ready, ${SECONDS} s 1080p H.264/AAC clip → 360p/720p/1080p HLS + poster (median of ${ROUNDS})`,
  [
    { side: "frameline upload → ready", seconds: o / 1000, ratio: o / b },
    { side: "bare ffmpeg, same renditions", seconds: b / 1000, ratio: 1 },
  ],
  { ratio: Number((o / b).toFixed(3)), target: "ratio <= 1.15", met: o / b <= 1.15, rounds_ms: times },
);
