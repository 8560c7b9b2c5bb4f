/** Prints a side-by-side table and keeps the figures under bench/results/<name>.json. */
import { join } from "node:path";
import { mkdir } from "node:fs/promises";

export interface Row {
  [column: string]: string | number;
}

const fmt = (v: string | number) => (typeof v === "number" ? (Number.isInteger(v) ? v.toLocaleString("en-US") : v.toFixed(2)) : v);

export function table(rows: Row[]): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cells = [columns, ...rows.map((r) => columns.map((c) => (r[c] === undefined ? "" : fmt(r[c]!))))];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => String(row[i]).length)));
  const line = (row: (string | number)[]) => "| " + row.map((c, i) => String(c).padEnd(widths[i]!)).join(" | ") + " |";
  return [line(cells[0]!), "|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|", ...cells.slice(1).map(line)].join("\n");
}

export async function report(name: string, title: string, rows: Row[], extra: Record<string, unknown> = {}): Promise<void> {
  console.log(`\n${title}\n\n${table(rows)}\n`);
  for (const [k, v] of Object.entries(extra)) console.log(`${k}: ${typeof v === "object" ? JSON.stringify(v) : v}`);
  const dir = join(import.meta.dir, "..", "results");
  await mkdir(dir, { recursive: true });
  await Bun.write(join(dir, `${name}.json`), JSON.stringify({ name, title, at: new Date().toISOString(), rows, ...extra }, null, 2) + "\n");
}
