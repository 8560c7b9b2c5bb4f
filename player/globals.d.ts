/**
 * Constants the compiler bakes into the per-video entry with esbuild `define`
 * (the contract between compiler and player). `__FL_FEATURES__` has one boolean member per
 * row of compiler/flags.ts, each replaced by a literal, so esbuild drops the
 * feature modules a video does not use. `__FL_SPLIT_TEST__` is null unless the
 * video is the control of a running split test. `__FL_PROTECTION__` is null unless
 * the video is protected (player/protection.ts).
 */
import type { FeatureFlags } from "../compiler/flags.ts";
import type { BakedPlayerConfig, PlaybackGuard, SplitTestEmbed } from "../contract/player-config.ts";

declare global {
  const __FL_CONFIG__: BakedPlayerConfig;
  /** The core's file, relative to the entry. */
  const __FL_CORE_URL__: string;
  const __FL_FEATURES__: Readonly<FeatureFlags>;
  /** The split test this video is the control of while it is not ended, else null (player/split-test.ts). */
  const __FL_SPLIT_TEST__: SplitTestEmbed | null;
  /** The video's allowed origins and signed-URL rule, else null (player/protection.ts). */
  const __FL_PROTECTION__: PlaybackGuard | null;
  /** A playlist item of this video's playlist requires signed URLs (player/features/playlist.ts fetches its token). */
  const __FL_SIGNED_ITEMS__: boolean;
}
