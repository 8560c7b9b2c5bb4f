/**
 * Run in its own process (chDB allows one data directory per process): prints
 * the `seq` property of every custom event in the chDB at argv[2] as JSON.
 */
import { connectClickHouse } from "../../server/storage/clickhouse.ts";

const ch = await connectClickHouse({ embeddedPath: process.argv[2]! });
const result = await ch.query({ query: "SELECT properties['seq'] AS seq FROM events WHERE event_type = 'custom'", format: "JSONEachRow" });
const rows = await result.json<{ seq: string }>();
process.stdout.write(JSON.stringify(rows.map((r) => r.seq)));
await ch.close();
