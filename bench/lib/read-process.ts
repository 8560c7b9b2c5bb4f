/**
 * One analytics read of the growth mode (bench/analytics.bench.ts) as the service runs it:
 * a fresh process opens the settled store, as the app does, warms the read up, then times
 * it. Prints p50/p95 in ms and the peak resident memory (VmHWM) after opening and during
 * the timed runs, in MiB, as JSON.
 *
 *   bun bench/lib/read-process.ts <clickhouse dir> <read> <now ms> <from> <to> <warm-ups> <runs>
 */
import { readFile, writeFile } from "node:fs/promises";
import { connectClickHouse } from "../../server/storage/clickhouse.ts";
import { growthReads } from "./growth-reads.ts";
import { timed } from "./timed.ts";

const peakMib = async () => Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(await readFile("/proc/self/status", "utf8"))![1]) / 1024);

const [path, read, nowMs, from, to, warmups, runs] = process.argv.slice(2);
const ch = await connectClickHouse({ embeddedPath: path! });
const run = growthReads(ch, Number(nowMs), from!, to!)[read!]!;
await run();
const opened = await peakMib();
// From here the peak counts the reads alone (Linux: 5 resets the peak to the current size).
await writeFile("/proc/self/clear_refs", "5").catch(() => {});
const { p50, p95 } = await timed(run, Number(warmups) - 1, Number(runs));
console.log(JSON.stringify({ p50, p95, opened_mib: opened, peak_mib: await peakMib() }));
await ch.close();
