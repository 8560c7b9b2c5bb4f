/**
 * The player compiler, and only that: a video's config and feature flags in,
 * bundle bytes out, pushed to the CDN targets it is given. It reads no
 * database and imports no server code but types; which video, which settings
 * and which locks belong to the server (server/domains/publish). The stable
 * `script_url` (`/cdn/p/<code>.js`) is the per-video entry; it loads a shared,
 * content-hashed core.
 *
 * @example
 *   const player = await compilePlayer({ config, flags: featureFlags(config.settings), sources: DEFAULT_SOURCES });
 *   const push = await pushPlayer([cdnA, cdnB], player); // push.rollback() puts the previous entry back
 */
import { createHash } from "node:crypto";
import { buildEntry, buildSplitTestEntry, coreFor, DEFAULT_SOURCES, type OutputFile, type PlayerSources } from "./build.ts";
import type { PlaybackGuard, SplitTestEmbed } from "../contract/player-config.ts";
import type { BakedPlayerConfig } from "./config.ts";
import type { FeatureFlags } from "./flags.ts";
import { pushEntry, pushImmutable, type EntryPush, type PushTarget } from "./push.ts";

export { DEFAULT_SOURCES, type OutputFile, type PlayerSources } from "./build.ts";
export { playerConfig, playlistCodes, type BakedPlayerConfig, type ItemMedia } from "./config.ts";
export { featureFlags, type FeatureFlags } from "./flags.ts";
export type { EntryPush } from "./push.ts";
export type { SplitTestEmbed } from "../contract/player-config.ts";

/** The CDN key of a video's entry: stable, overwritten by every publish. */
export const entryKey = (code: string) => `p/${code}.js`;

/** The CDN key of a split test's own snippet script: stable. */
export const splitTestKey = (code: string) => `s/${code}.js`;

export interface CompileInput {
  config: BakedPlayerConfig;
  flags: FeatureFlags;
  sources: PlayerSources;
  /** The split test this video is the control of while the test is not ended: its embed then serves the test. */
  splitTest?: SplitTestEmbed | null;
  /** A protected video's rules: the entry checks the page's site and asks for a token (player/protection.ts). */
  protection?: PlaybackGuard | null;
}

export interface CompiledPlayer {
  /** `p/<video code>.js`. */
  entryKey: string;
  entry: Uint8Array;
  /** The content-hashed core and its lazy chunks. */
  core: OutputFile[];
  /** The first 16 hex digits of the entry's SHA-256 (a deploy version's `version_hash`). */
  versionHash: string;
}

/** Builds a video's entry around the shared core (built once per process per source content). Throws when esbuild fails. */
export async function compilePlayer(input: CompileInput): Promise<CompiledPlayer> {
  const core = await coreFor(input.sources.core);
  // Relative: the entry loads the core from beside itself, wherever it is served (player/locate.ts).
  const entry = await buildEntry(input.sources.entry, input.config, core.coreFile, input.flags, input.splitTest ?? null, input.protection ?? null);
  return {
    entryKey: entryKey(input.config.video.code),
    entry,
    core: core.files,
    versionHash: createHash("sha256").update(entry).digest("hex").slice(0, 16),
  };
}

/**
 * Builds a split test's own snippet script (`s/<test code>.js`) and pushes it to
 * every target, all or nothing. It asks the events host which variation to play,
 * so it never changes while the test lives.
 */
export async function publishSplitTest(targets: PushTarget[], splitTest: SplitTestEmbed, sources: PlayerSources): Promise<EntryPush> {
  const bytes = await buildSplitTestEntry(sources.splitTest ?? DEFAULT_SOURCES.splitTest!, splitTest);
  return pushEntry(targets, splitTestKey(splitTest.code), bytes);
}

/**
 * Pushes a compiled player to every target: the core first, since a pushed
 * entry must never point at a missing core, then the entry, all or nothing.
 * Throws (the previous entry still serving everywhere) when a push fails; the
 * returned `rollback` restores the previous entry for a caller whose own
 * later step failed.
 */
export async function pushPlayer(targets: PushTarget[], player: CompiledPlayer): Promise<EntryPush> {
  await pushImmutable(targets, player.core);
  return pushEntry(targets, player.entryKey, player.entry);
}
