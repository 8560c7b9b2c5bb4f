/** Boot only: loadConfig(process.env) → createRuntime (deps, workers) → createApp(deps).listen. */
import { loadConfig } from "./config.ts";
import { createApp } from "./app.ts";
import { ensureDefaultWorkspace, resolveAdminKey } from "./bootstrap.ts";
import { createRuntime } from "./runtime.ts";

const config = loadConfig(process.env);
const runtime = await createRuntime(config, { workers: config.inProcessWorkers });
const { deps } = runtime;
const adminKey = await resolveAdminKey(config);
const firstStart = await ensureDefaultWorkspace(deps);
// Bun's development mode (on unless NODE_ENV=production) renders its own error pages and costs
// about a sixth of the CPU of a small request; the errors plugin answers every error in the spec's shape.
const app = createApp(deps, { adminKey: adminKey.key }).listen({
  port: config.port,
  hostname: config.host,
  maxRequestBodySize: 3000 * 1024 * 1024,
  development: false,
});

const lines = [
  `Frameline is listening on ${config.publicUrl}`,
  `  Postgres:   ${config.databaseUrl ? "server (DATABASE_URL)" : `embedded PGlite in ${config.dataDir}/postgres`}`,
];
lines.push(`  ClickHouse: ${config.clickhouseUrl ? "server (CLICKHOUSE_URL)" : `embedded chDB in ${config.dataDir}/clickhouse`}`);
lines.push(`  Media:      ${config.s3 ? `S3 bucket ${config.s3.bucket}` : `${config.dataDir}/media`}`);
lines.push(`  Admin key:  ${adminKey.path ? `${adminKey.path}${adminKey.generated ? " (generated now)" : ""}` : "from ADMIN_KEY"}`);
if (adminKey.generated) lines.push(`  ADMIN_KEY=${adminKey.key}`);
if (firstStart) {
  lines.push(
    "",
    `Created workspace "Default" (id ${firstStart.workspaceId}). Its API token, with every scope, is shown only now:`,
    "",
    `  FRAMELINE_TOKEN=${firstStart.token}`,
    "",
  );
}
console.log(lines.join("\n"));

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  deps.log.info("shutting down", { signal });
  // No new requests first; then workers, ingest and engines, in runtime.ts's order.
  await app.stop();
  await runtime.close();
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
