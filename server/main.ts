/** Boot only: loadConfig(process.env) → createRuntime (deps, workers) → createApp(deps).listen. */
import { loadConfig } from "./config.ts";
import { createApp } from "./app.ts";
import { ensureDefaultWorkspace, ensureFirstOwner, resolveAdminKey } from "./bootstrap.ts";
import { createRuntime, refuseToStart } from "./runtime.ts";

const config = loadConfig(process.env);
const runtime = await createRuntime(config, { role: "app", workers: config.inProcessWorkers }).catch(refuseToStart);
const { deps } = runtime;
const adminKey = await resolveAdminKey(config);
const firstStart = await ensureDefaultWorkspace(deps);
const firstOwner = await ensureFirstOwner(deps);
// Bun's development mode (on unless NODE_ENV=production) renders its own error pages and costs
// about a sixth of the CPU of a small request; the errors plugin answers every error in the spec's shape.
// Bun closes a connection idle this long (s); a JSON body stalled shorter than that gets its 400 first (BODY_TIMEOUT_MS).
const IDLE_TIMEOUT_S = Math.max(30, Math.ceil(config.bodyTimeoutMs / 1000) + 5);
const app = createApp(deps, { adminKey: adminKey.key }).listen({
  port: config.port,
  hostname: config.host,
  maxRequestBodySize: 3000 * 1024 * 1024,
  idleTimeout: IDLE_TIMEOUT_S,
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
if (firstOwner) {
  lines.push(
    "",
    `Created the first owner. Sign in at ${config.publicUrl}/dashboard with this password, shown only now:`,
    "",
    `  Email:    ${firstOwner.email}`,
    `  Password: ${firstOwner.password}`,
    "",
  );
}
console.log(lines.join("\n"));

/** In-flight requests get this long to finish before their connections are closed. */
const DRAIN_MS = 5_000;
/** Past this the process exits whatever is still running (a stuck request or engine must not keep it up). */
const SHUTDOWN_DEADLINE_MS = 20_000;

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  deps.log.info("shutting down", { signal });
  setTimeout(() => {
    deps.log.error("shutdown did not finish in time; exiting", { deadline_ms: SHUTDOWN_DEADLINE_MS });
    process.exit(1);
  }, SHUTDOWN_DEADLINE_MS).unref();
  // No new requests first (those in flight get DRAIN_MS); then workers, ingest and engines, in runtime.ts's order.
  const drained = await Promise.race([app.stop().then(() => true), Bun.sleep(DRAIN_MS).then(() => false)]);
  if (!drained) await app.stop(true);
  await runtime.close();
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
