/** `npm run worker`: the background workers without the HTTP server. */
import { loadConfig } from "./config.ts";
import { createDeps } from "./deps.ts";
import { startWorkers } from "./workers/index.ts";

const config = loadConfig(process.env);
if (!config.databaseUrl) {
  console.error("npm run worker needs DATABASE_URL: embedded mode runs its workers inside `npm start`.");
  process.exit(1);
}
const deps = await createDeps(config);
const stop = startWorkers(deps);
console.log("Frameline worker running");
const shutdown = async () => {
  await stop();
  await deps.close();
  process.exit(0);
};
process.on("SIGINT", () => void shutdown());
process.on("SIGTERM", () => void shutdown());
