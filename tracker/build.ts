/** Builds the tracker with esbuild into one minified IIFE (served at /t.js; budget in tracker/budget.json). */
import { build } from "esbuild";
import { join } from "node:path";

export const TRACKER_ENTRY = join(import.meta.dir, "src", "tracker.ts");

export async function buildTracker(): Promise<string> {
  const result = await build({
    entryPoints: [TRACKER_ENTRY],
    bundle: true,
    minify: true,
    format: "iife",
    target: ["es2019"],
    write: false,
    legalComments: "none",
  });
  return result.outputFiles[0]!.text;
}

if (import.meta.main) {
  const out = join(import.meta.dir, "dist", "t.js");
  await Bun.write(out, await buildTracker());
  console.log(`wrote ${out}`);
}
