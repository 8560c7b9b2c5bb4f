/**
 * The memory of the service during one analytics read (the growth mode of
 * bench/analytics.bench.ts): a fresh process opens the store, as the app does, and runs
 * the read five times. Prints the peak resident memory (VmHWM) after opening and after
 * the reads, in MiB, as JSON.
 *
 *   bun bench/lib/read-memory.ts <clickhouse dir> <read> <now ms> <from> <to>
 */
import { readFile, writeFile } from "node:fs/promises";
import { connectClickHouse } from "../../server/storage/clickhouse.ts";
import { growthReads } from "./growth-reads.ts";

const peakMib = async () => Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(await readFile("/proc/self/status", "utf8"))![1]) / 1024);

const [path, read, nowMs, from, to] = process.argv.slice(2);
const ch = await connectClickHouse({ embeddedPath: path! });
const run = growthReads(ch, Number(nowMs), from!, to!)[read!]!;
await run();
const opened = await peakMib();
// From here the peak counts the reads alone (Linux: 5 resets the peak to the current size).
await writeFile("/proc/self/clear_refs", "5").catch(() => {});
for (let i = 0; i < 5; i++) await run();
console.log(JSON.stringify({ opened_mib: opened, peak_mib: await peakMib(), rss_mib: Math.round(process.memoryUsage.rss() / 1048576) }));
await ch.close();
