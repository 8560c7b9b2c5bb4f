/**
 * The two esbuild builds of a player (docs/architecture.md "Player code like hls.js"):
 * the shared core, content-hashed and built once per process per source
 * content, and the small per-video entry with the live settings baked in as
 * `define` constants so features a video does not use drop out of its bundle.
 */
import * as esbuild from "esbuild";
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { flagDefines, type FeatureFlags } from "./flags.ts";
import type { PlaybackGuard, SplitTestEmbed } from "../contract/player-config.ts";

export interface PlayerSources {
  /** Per-video entry source (default player/entry.ts). */
  entry: string;
  /** Shared core source (default player/core.ts). */
  core: string;
  /** A split test's own snippet script (default player/split-test-entry.ts). */
  splitTest?: string;
}

export const DEFAULT_SOURCES: PlayerSources = {
  entry: resolve(import.meta.dir, "..", "player", "entry.ts"),
  core: resolve(import.meta.dir, "..", "player", "core.ts"),
  splitTest: resolve(import.meta.dir, "..", "player", "split-test-entry.ts"),
};

export interface OutputFile {
  /** Key relative to the CDN root, e.g. `p/core-AB12CD34.js`. */
  key: string;
  bytes: Uint8Array;
}

export interface CoreBuild {
  /** The core's own file name, `core-<hash>.js`. */
  coreFile: string;
  /** The core and its lazy chunks (hls.js), every name content-hashed. */
  files: OutputFile[];
}

interface CachedCore {
  build: Promise<CoreBuild>;
  /** Every local input of the build with its mtime and size, to notice an edit. */
  stamps?: Map<string, string>;
}

const cores = new Map<string, CachedCore>();

async function stampOf(path: string): Promise<string> {
  const s = await stat(path).catch(() => undefined);
  return s ? `${s.mtimeMs}:${s.size}` : "missing";
}

async function stillFresh(cached: CachedCore): Promise<boolean> {
  if (!cached.stamps) return true; // still building
  for (const [path, stamp] of cached.stamps) if ((await stampOf(path)) !== stamp) return false;
  return true;
}

async function buildCore(corePath: string): Promise<{ core: CoreBuild; inputs: string[] }> {
  const result = await esbuild.build({
    entryPoints: [corePath],
    bundle: true,
    format: "esm",
    splitting: true,
    minify: true,
    entryNames: "core-[hash]",
    chunkNames: "chunk-[hash]",
    write: false,
    outdir: "p",
    metafile: true,
    logLevel: "silent",
  });
  const outRoot = resolve("p");
  const files = result.outputFiles.map((f) => ({ key: `p/${f.path.slice(outRoot.length + 1)}`, bytes: f.contents }));
  const coreFile = files.find((f) => /^p\/core-[^/]+\.js$/.test(f.key));
  if (!coreFile) throw new Error("esbuild produced no core file");
  // Only the project's own sources can change under a running process.
  const inputs = Object.keys(result.metafile!.inputs)
    .filter((p) => !p.includes("node_modules"))
    .map((p) => resolve(p));
  return { core: { coreFile: coreFile.key.slice(2), files }, inputs };
}

/** The core build for this source, rebuilt only when one of its local inputs changed. */
export async function coreFor(corePath: string): Promise<CoreBuild> {
  const cached = cores.get(corePath);
  if (cached && (await stillFresh(cached))) return cached.build;
  const entry: CachedCore = {
    build: buildCore(corePath).then(async ({ core, inputs }) => {
      entry.stamps = new Map(await Promise.all(inputs.map(async (p) => [p, await stampOf(p)] as const)));
      return core;
    }),
  };
  entry.build.catch(() => cores.get(corePath) === entry && cores.delete(corePath));
  cores.set(corePath, entry);
  return entry.build;
}

/**
 * Builds one video's entry: an IIFE with its config, its core's file and feature flags
 * (compiler/flags.ts) baked in, and the split test it is the control of (null:
 * none, and the split-test code drops out).
 */
export async function buildEntry(
  entryPath: string,
  config: unknown,
  /** The core's file, relative to the entry (`core-<hash>.js`). */
  coreFile: string,
  flags: Partial<FeatureFlags>,
  splitTest: SplitTestEmbed | null = null,
  /** A protected video's rules (null: public, and the protection code drops out). */
  protection: PlaybackGuard | null = null,
): Promise<Uint8Array> {
  return buildIife(entryPath, {
    __FL_CONFIG__: JSON.stringify(config),
    __FL_CORE_URL__: JSON.stringify(coreFile),
    __FL_SPLIT_TEST__: JSON.stringify(splitTest),
    __FL_PROTECTION__: JSON.stringify(protection),
    __FL_SIGNED_ITEMS__: JSON.stringify(hasSignedItems(config)),
    ...flagDefines(flags),
  });
}

/** Whether a playlist item needs a token (contract PlaylistItem `signed`): without one, the token code drops out. */
function hasSignedItems(config: unknown): boolean {
  const items = (config as { playlist?: { items?: { signed?: boolean }[] } | null } | null)?.playlist?.items ?? [];
  return items.some((item) => item?.signed === true);
}

/** Builds a split test's own snippet script with the test baked in. */
export async function buildSplitTestEntry(entryPath: string, splitTest: SplitTestEmbed): Promise<Uint8Array> {
  return buildIife(entryPath, { __FL_SPLIT_TEST__: JSON.stringify(splitTest) });
}

async function buildIife(entryPath: string, define: Record<string, string>): Promise<Uint8Array> {
  const result = await esbuild.build({ entryPoints: [entryPath], bundle: true, format: "iife", minify: true, write: false, logLevel: "silent", define });
  const out = result.outputFiles[0];
  if (!out) throw new Error("esbuild produced no entry file");
  return out.contents;
}
