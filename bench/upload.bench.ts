/**
 * A 512 MiB file through init / PATCH / complete against `npm start`, against
 * @tus/server with @tus/file-store on the same disk with the same chunks, and
 * against raw disk writes of the same chunks; alternating rounds in one run,
 * median reported. Two chunk sizes: 8 MiB (the recommended `chunk_size`) and
 * 1 MiB (what a tus client on a poor network may send). Targets: >= 1.0x tus
 * and >= 0.7x raw disk with 8 MiB chunks; >= 1.0x tus with 1 MiB chunks.
 *
 * A third pair of rows sends a smaller file's 8 MiB chunks to two Frameline processes
 * in turn (PostgreSQL server, S3 through s3rver), against the same upload sent to one
 * of them: a chunk that lands on the other process waits for no lease, so the two
 * take the same time (target: ratio >= 0.9). It needs a PostgreSQL server
 * (DATABASE_URL, default the machine's) and is left out, saying so, without one.
 *
 * Each server runs in its own process; the client loop is the same for both and
 * reads each chunk from the source file on disk, as an uploading client would.
 * Every side starts after `sync` (and, where permitted, a page-cache drop) and
 * the order rotates each round, so no side pays for the dirty pages another
 * left behind: the kernel throttles writers once enough are pending.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { report } from "./lib/report.ts";
import { freePort, startServer, type RunningServer } from "./lib/server.ts";
import { startS3rver } from "../test/helpers/s3rver.ts";
import { spawnClickHouseHttp } from "../test/helpers/clickhouse-http.ts";

const MiB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_UPLOAD_MIB ?? 512) * MiB;
const CHUNK = 8 * MiB;
const SMALL_CHUNK = 1 * MiB;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PAIR_SIZE = Math.min(SIZE, Number(process.env.BENCH_UPLOAD_PAIR_MIB ?? 64) * MiB);
const PG_ADMIN_URL = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";

// `bun bench/upload.bench.ts --tus <dir> <port>`: the baseline server, in its own process.
if (process.argv[2] === "--tus") {
  const { Server } = await import("@tus/server");
  const { FileStore } = await import("@tus/file-store");
  const tus = new Server({ path: "/files", datastore: new FileStore({ directory: process.argv[3]! }) });
  Bun.serve({ port: Number(process.argv[4]), maxRequestBodySize: 2 * CHUNK, fetch: (req) => tus.handleWeb(req) });
  console.log("ready");
} else {
  await main();
}

async function main() {
  const work = await mkdtemp(join(tmpdir(), "frameline-upload-bench-"));
  const source = join(work, "source.mp4");
  // An mp4 signature up front so complete accepts it; the rest is incompressible.
  const header = new Uint8Array(32);
  header.set(new TextEncoder().encode("\0\0\0\x20ftypisom\0\0\x02\0isomiso2avc1mp41"));
  {
    const fh = await open(source, "w");
    const block = randomBytes(CHUNK);
    block.set(header, 0);
    for (let at = 0; at < SIZE; at += CHUNK) await fh.write(block, 0, Math.min(CHUNK, SIZE - at), at);
    await fh.close();
  }

  const server = await startServer({ RATE_LIMIT_WRITES_PER_MINUTE: "1000000", IN_PROCESS_WORKERS: "0" });
  const auth = { Authorization: `Bearer ${server.token}` };
  const tusDir = join(work, "tus");
  const tusPort = await freePort();
  await Bun.$`mkdir -p ${tusDir}`.quiet();
  const tus = Bun.spawn([process.execPath, import.meta.path, "--tus", tusDir, String(tusPort)], { stdout: "pipe", stderr: "inherit" });
  const tusReader = tus.stdout.getReader();
  await tusReader.read();
  tusReader.releaseLock();

  const chunkBody = (at: number, chunk: number) => Bun.file(source).slice(at, Math.min(at + chunk, SIZE));

  async function ours(chunk: number): Promise<number> {
    const created = await fetch(`${server.url}/api/v1/videos`, {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ title: "bench" }),
    });
    const videoId = ((await created.json()) as { video: { id: number } }).video.id;
    const start = performance.now();
    const init = await fetch(`${server.url}/api/v1/videos/${videoId}/upload/init`, {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ filename: "bench.mp4", size: SIZE, mime_type: "video/mp4" }),
    });
    const session = (await init.json()) as { upload_url: string };
    for (let at = 0; at < SIZE; at += chunk) {
      const res = await fetch(session.upload_url, {
        method: "PATCH",
        headers: { ...auth, "Content-Type": "application/offset+octet-stream", "Upload-Offset": String(at) },
        body: chunkBody(at, chunk),
      });
      if (res.status !== 200) throw new Error(`PATCH ${at}: ${res.status} ${await res.text()}`);
    }
    const done = await fetch(`${session.upload_url}/complete`, { method: "POST", headers: auth });
    if (done.status !== 202) throw new Error(`complete: ${done.status} ${await done.text()}`);
    return performance.now() - start;
  }

  async function baseline(chunk: number): Promise<number> {
    const start = performance.now();
    const created = await fetch(`http://127.0.0.1:${tusPort}/files`, { method: "POST", headers: { "Tus-Resumable": "1.0.0", "Upload-Length": String(SIZE) } });
    if (created.status !== 201) throw new Error(`tus create: ${created.status}`);
    const url = new URL(created.headers.get("location")!, `http://127.0.0.1:${tusPort}`).toString();
    for (let at = 0; at < SIZE; at += chunk) {
      const res = await fetch(url, {
        method: "PATCH",
        headers: { "Tus-Resumable": "1.0.0", "Content-Type": "application/offset+octet-stream", "Upload-Offset": String(at) },
        body: chunkBody(at, chunk),
      });
      if (res.status !== 204) throw new Error(`tus PATCH ${at}: ${res.status}`);
    }
    return performance.now() - start;
  }

  async function rawDisk(): Promise<number> {
    const target = join(work, `raw-${Math.random().toString(36).slice(2)}.bin`);
    const start = performance.now();
    const out = await open(target, "w");
    const src = await open(source, "r");
    const buffer = new Uint8Array(CHUNK);
    for (let at = 0; at < SIZE; at += CHUNK) {
      const { bytesRead } = await src.read(buffer, 0, Math.min(CHUNK, SIZE - at), at);
      await out.write(buffer, 0, bytesRead, at);
    }
    await src.close();
    await out.close();
    const ms = performance.now() - start;
    await rm(target);
    return ms;
  }

  const times = { ours: [] as number[], tus: [] as number[], raw: [] as number[], ours1: [] as number[], tus1: [] as number[] };
  let pair: { one: number[]; two: number[] } | undefined;
  const freshTus = async () => {
    await rm(tusDir, { recursive: true, force: true });
    await Bun.$`mkdir -p ${tusDir}`.quiet();
  };
  try {
    const sides = [
      async () => times.raw.push(await rawDisk()),
      async () => {
        times.tus.push(await baseline(CHUNK));
        await freshTus();
      },
      async () => times.ours.push(await ours(CHUNK)),
      async () => {
        times.tus1.push(await baseline(SMALL_CHUNK));
        await freshTus();
      },
      async () => times.ours1.push(await ours(SMALL_CHUNK)),
    ];
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < sides.length; i++) {
        await Bun.$`sync`.quiet();
        await Bun.write("/proc/sys/vm/drop_caches", "1").catch(() => {});
        await sides[(round + i) % sides.length]!();
      }
    }
    pair = await twoInstances(source).catch((error) => {
      console.log(`two-instance rows left out: ${(error as Error).message}`);
      return undefined;
    });
  } finally {
    tus.kill();
    await tus.exited;
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const mbps = (ms: number) => SIZE / 1e6 / (ms / 1000);
  const pairMbps = (ms: number) => PAIR_SIZE / 1e6 / (ms / 1000);
  const o = mbps(median(times.ours));
  const t = mbps(median(times.tus));
  const r = mbps(median(times.raw));
  const o1 = mbps(median(times.ours1));
  const t1 = mbps(median(times.tus1));
  await report(
    "upload",
    `Resumable upload of ${SIZE / MiB} MiB (median of ${ROUNDS} rounds)`,
    [
      { side: "frameline init/PATCH/complete, 8 MiB chunks", "MB/s": o, ms: median(times.ours), ratio: 1 },
      { side: "@tus/server + @tus/file-store, 8 MiB chunks", "MB/s": t, ms: median(times.tus), ratio: o / t },
      { side: "raw disk write (same 8 MiB chunks)", "MB/s": r, ms: median(times.raw), ratio: o / r },
      { side: "frameline init/PATCH/complete, 1 MiB chunks", "MB/s": o1, ms: median(times.ours1), ratio: 1 },
      { side: "@tus/server + @tus/file-store, 1 MiB chunks", "MB/s": t1, ms: median(times.tus1), ratio: o1 / t1 },
      ...(pair
        ? [
            {
              side: `${PAIR_SIZE / MiB} MiB, 8 MiB chunks, one process (PostgreSQL, S3)`,
              "MB/s": pairMbps(median(pair.one)),
              ms: median(pair.one),
              ratio: 1,
            },
            {
              side: `${PAIR_SIZE / MiB} MiB, 8 MiB chunks, alternating between two processes`,
              "MB/s": pairMbps(median(pair.two)),
              ms: median(pair.two),
              ratio: median(pair.one) / median(pair.two),
            },
          ]
        : []),
    ],
    {
      ratio_vs_tus: Number((o / t).toFixed(3)),
      ratio_vs_raw: Number((o / r).toFixed(3)),
      ratio_vs_tus_1mib: Number((o1 / t1).toFixed(3)),
      target: "8 MiB: ratio_vs_tus >= 1.0, ratio_vs_raw >= 0.7; 1 MiB: ratio_vs_tus_1mib >= 1.0",
      ratio_two_instances: pair ? Number((median(pair.one) / median(pair.two)).toFixed(3)) : null,
      met: o / t >= 1 && o / r >= 0.7 && o1 / t1 >= 1 && (!pair || median(pair.one) / median(pair.two) >= 0.9),
      rounds_ms: { ...times, pair_one: pair?.one, pair_two: pair?.two },
    },
  );
}

/**
 * The same upload sent to one process and with its chunks alternating between two
 * (a load balancer's round robin), both over one PostgreSQL database and one S3 bucket.
 */
async function twoInstances(source: string): Promise<{ one: number[]; two: number[] }> {
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {}, connect_timeout: 3 });
  const name = `frameline_bench_${Date.now().toString(36)}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const s3 = await startS3rver();
  await s3.createBucket("frameline-bench");
  const chDir = await mkdtemp(join(tmpdir(), "frameline-upload-bench-ch-"));
  const clickhouse = await spawnClickHouseHttp({ path: join(chDir, "data") });
  const servers: RunningServer[] = [];
  try {
    // Both name the address a load balancer in front of them would have.
    const balancer = await freePort();
    const shared = {
      DATABASE_URL: url.toString(),
      CLICKHOUSE_URL: clickhouse.url,
      S3_BUCKET: "frameline-bench",
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      S3_FORCE_PATH_STYLE: "1",
      PUBLIC_URL: `http://127.0.0.1:${balancer}`,
      ADMIN_KEY: "fla_bench_0123456789abcdef0123456789abcdef",
      RATE_LIMIT_WRITES_PER_MINUTE: "1000000",
      IN_PROCESS_WORKERS: "0",
    };
    servers.push(await startServer(shared));
    const token = servers[0]!.token;
    servers.push(await startServer(shared, { listening: true }));
    const auth = { Authorization: `Bearer ${token}` };
    const upload = async (targets: RunningServer[]) => {
      const created = await fetch(`${targets[0]!.url}/api/v1/videos`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({ title: "bench" }),
      });
      const videoId = ((await created.json()) as { video: { id: number } }).video.id;
      const start = performance.now();
      const init = await fetch(`${targets[0]!.url}/api/v1/videos/${videoId}/upload/init`, {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({ filename: "bench.mp4", size: PAIR_SIZE, mime_type: "video/mp4" }),
      });
      const id = ((await init.json()) as { upload_id: string }).upload_id;
      let n = 0;
      for (let at = 0; at < PAIR_SIZE; at += CHUNK, n++) {
        const res = await fetch(`${targets[n % targets.length]!.url}/api/v1/uploads/${id}`, {
          method: "PATCH",
          headers: { ...auth, "Content-Type": "application/offset+octet-stream", "Upload-Offset": String(at) },
          body: Bun.file(source).slice(at, Math.min(at + CHUNK, PAIR_SIZE)),
        });
        if (res.status !== 200) throw new Error(`PATCH ${at}: ${res.status} ${await res.text()}`);
      }
      return performance.now() - start;
    };
    const one: number[] = [];
    const two: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2) two.push(await upload(servers));
      one.push(await upload([servers[0]!]));
      if (!(round % 2)) two.push(await upload(servers));
    }
    return { one, two };
  } finally {
    for (const s of servers) await s.stop();
    await clickhouse.stop();
    await rm(chDir, { recursive: true, force: true });
    await s3.stop();
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
}
