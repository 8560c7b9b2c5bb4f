/**
 * Constants the compiler bakes into the per-video entry with esbuild `define`
 * (CONTRACT: compiler ↔ player). Feature flags are plain booleans so esbuild
 * drops the feature modules a video does not use.
 */
import type { PlayerConfig } from "./types.ts";

declare global {
  const __FL_CONFIG__: PlayerConfig;
  const __FL_CORE_URL__: string;
  const __FL_CHAPTERS__: boolean;
  const __FL_CTA__: boolean;
  const __FL_CAPTIONS__: boolean;
  const __FL_PLAYLIST__: boolean;
  const __FL_AUTOPLAY__: boolean;
}
