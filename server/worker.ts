/** `npm run worker`: the background workers without the HTTP server. */
import { loadConfig } from "./config.ts";
import { createRuntime, refuseToStart } from "./runtime.ts";

const config = loadConfig(process.env);
if (!config.databaseUrl) {
  console.error("npm run worker needs DATABASE_URL: embedded mode runs its workers inside `npm start`.");
  process.exit(1);
}
const runtime = await createRuntime(config, { role: "worker", workers: true }).catch(refuseToStart);
console.log("Frameline worker running");
const shutdown = async () => {
  await runtime.close();
  process.exit(0);
};
process.on("SIGINT", () => void shutdown());
process.on("SIGTERM", () => void shutdown());
