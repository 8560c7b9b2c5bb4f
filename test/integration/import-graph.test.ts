/**
 * The house's structure (docs/architecture.md "Layout"): no import circle between
 * files or between folders, and the browser parts and the compiler take shared
 * types from contract/, never from server/.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { circles, describeCircle, folderGraph, readImportGraph } from "../helpers/import-graph.ts";

const ROOT = join(import.meta.dir, "..", "..");
const graph = await readImportGraph(ROOT);

describe("import graph", () => {
  test("reads the source tree", () => {
    expect(graph.size).toBeGreaterThan(250);
    expect(graph.get("server/app.ts")?.has("server/deps.ts")).toBe(true);
  });

  test("no file imports itself back through others", () => {
    expect(circles(graph).map((c) => describeCircle(graph, c))).toEqual([]);
  });

  test("no two folders import each other, directly or around a loop", () => {
    // deps.ts is the interface every folder may name; it imports only types of the state it lists.
    const folders = folderGraph(graph);
    folders.delete("server/deps.ts");
    for (const targets of folders.values()) targets.delete("server/deps.ts");
    expect(circles(folders).map((c) => describeCircle(folders, c))).toEqual([]);
  });

  test("deps.ts holds the interface only: type imports, nothing constructed", async () => {
    const text = await Bun.file(join(ROOT, "server", "deps.ts")).text();
    expect(text.match(/^import (?!type )/gm) ?? []).toEqual([]);
    expect(text).not.toMatch(/^export (async )?function|^export const|^export class/m);
  });

  test("player, browser, tracker, compiler, dashboard and contract import nothing from server/", () => {
    const crossings = [...graph].flatMap(([file, targets]) =>
      /^(player|browser|tracker|compiler|dashboard|contract)\//.test(file)
        ? [...targets].filter((t) => t.startsWith("server/")).map((t) => `${file} -> ${t}`)
        : [],
    );
    expect(crossings).toEqual([]);
  });

  test("a circle, when there is one, is found and named by its imports", () => {
    const loop = new Map([
      ["a.ts", new Set(["b.ts"])],
      ["b.ts", new Set(["c.ts"])],
      ["c.ts", new Set(["a.ts"])],
      ["d.ts", new Set(["a.ts"])],
    ]);
    const [circle] = circles(loop);
    expect(circle).toEqual(["a.ts", "b.ts", "c.ts"]);
    expect(describeCircle(loop, circle!)).toEqual(["a.ts -> b.ts", "b.ts -> c.ts", "c.ts -> a.ts"]);
  });
});
