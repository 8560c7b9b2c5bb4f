/** `npm run bench [name...]`: runs bench/*.bench.ts (or the named ones) one after another. */
import { readdir } from "node:fs/promises";
import { join } from "node:path";

const wanted = process.argv.slice(2);
const files = (await readdir(import.meta.dir)).filter((f) => f.endsWith(".bench.ts")).sort();
const chosen = wanted.length ? files.filter((f) => wanted.some((w) => f.startsWith(w))) : files;
let failed = 0;
for (const file of chosen) {
  console.log(`\n### ${file}`);
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, file)], { stdout: "inherit", stderr: "inherit" });
  if ((await proc.exited) !== 0) failed++;
}
process.exit(failed ? 1 : 0);
