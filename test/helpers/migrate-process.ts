/**
 * Run as a process: what `npm start` does before it listens (connect the engines,
 * migrate both schemas under the lock) on DATABASE_URL and CLICKHOUSE_URL, then
 * stops. Tests start several at once to see migrations run exactly once.
 */
import { loadConfig } from "../../server/config.ts";
import { createDeps } from "../../server/runtime.ts";

const deps = await createDeps(loadConfig({ ...process.env, LOG_LEVEL: "warn" }));
await deps.close();
process.stdout.write("migrated\n");
