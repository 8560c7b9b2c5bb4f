/** Loaded before every test file (bunfig.toml): tears the shared engines down once at the end. */
import { afterAll } from "bun:test";
import { stopEngines } from "./engines.ts";

afterAll(async () => {
  await stopEngines();
});
