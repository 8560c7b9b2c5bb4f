/**
 * Constants the compiler bakes into the per-video entry with esbuild `define`
 * (CONTRACT: compiler ↔ player). `__FL_FEATURES__` has one boolean member per
 * row of compiler/flags.ts, each replaced by a literal, so esbuild drops the
 * feature modules a video does not use.
 */
import type { FeatureFlags } from "../compiler/flags.ts";
import type { PlayerConfig } from "./types.ts";

declare global {
  const __FL_CONFIG__: PlayerConfig;
  const __FL_CORE_URL__: string;
  const __FL_FEATURES__: Readonly<FeatureFlags>;
}
