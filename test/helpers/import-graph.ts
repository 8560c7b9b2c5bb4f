/**
 * The repository's import graph, read from the source text: every relative
 * import, `export … from` and `import()` of a file, type-only ones included
 * (a type import still ties two files together for a reader). Tests are left
 * out: they may reach across any seam.
 */
import { Glob } from "bun";
import { dirname, relative, resolve } from "node:path";

export type Graph = Map<string, Set<string>>;

const SOURCE_ROOTS = ["server", "contract", "player", "browser", "tracker", "compiler", "dashboard", "bench"];
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g;

const isTest = (path: string) => /\.test\.tsx?$/.test(path) || /\.e2e\.tsx?$/.test(path);

/** Files (repo-relative) and the repo-relative files each imports. */
export async function readImportGraph(root: string): Promise<Graph> {
  const graph: Graph = new Map();
  for (const top of SOURCE_ROOTS) {
    for await (const file of new Glob(`${top}/**/*.{ts,tsx}`).scan({ cwd: root })) {
      if (isTest(file) || file.includes("node_modules/")) continue;
      const text = await Bun.file(resolve(root, file)).text();
      const targets = new Set<string>();
      for (const [, specifier] of text.matchAll(SPECIFIER)) targets.add(relative(root, resolve(root, dirname(file), specifier!)));
      graph.set(file, targets);
    }
  }
  return graph;
}

/** Strongly connected components with more than one member (or a file importing itself): each is an import circle. */
export function circles(graph: Graph): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}

/**
 * The folder a file belongs to for the folder-level check: a resource, host or
 * domain folder of the server (`server/api/videos`), another server folder
 * (`server/http`), a file at the server's top (`server/app.ts`), or a top folder.
 */
export function folderOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] === "server") {
    if (["api", "hosts", "domains"].includes(parts[1]!) && parts.length > 3) return parts.slice(0, 3).join("/");
    return parts.length > 2 ? parts.slice(0, 2).join("/") : file;
  }
  return parts[0]!;
}

/** The graph with files merged into their folders (an edge inside one folder dropped). */
export function folderGraph(graph: Graph): Graph {
  const folders: Graph = new Map();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    const edges = folders.get(from) ?? new Set<string>();
    folders.set(from, edges);
    for (const target of targets) {
      const to = folderOf(target);
      if (to !== from) edges.add(to);
    }
  }
  return folders;
}

/** The edges of one circle, as `a -> b` lines, so a failure says which imports to cut. */
export function describeCircle(graph: Graph, members: string[]): string[] {
  const inside = new Set(members);
  return members.flatMap((m) => [...(graph.get(m) ?? [])].filter((t) => inside.has(t)).map((t) => `${m} -> ${t}`));
}
