/**
 * The per-video entry (served at `/cdn/p/<video_code>.js`). The compiler bakes
 * the live settings in with esbuild `define`; each feature is imported behind
 * its flag (compiler/flags.ts) so a video without, say, chapters ships no
 * chapter code. It then loads the shared, content-hashed core and boots it.
 */
import type { Feature } from "./types.ts";
import { chapters } from "./features/chapters.ts";
import { ctaCards } from "./features/cta-cards.ts";
import { captions } from "./features/captions.ts";
import { playlist } from "./features/playlist.ts";
import { autoplay } from "./features/autoplay.ts";
import { serveSplitTest } from "./split-test.ts";

const features: Feature[] = [];
if (__FL_FEATURES__.captions) features.push(captions);
if (__FL_FEATURES__.chapters) features.push(chapters);
if (__FL_FEATURES__.cta) features.push(ctaCards);
if (__FL_FEATURES__.playlist) features.push(playlist);
// Autoplay last: every other feature is listening before playback can start.
if (__FL_FEATURES__.autoplay) features.push(autoplay);

// A variable argument keeps esbuild from resolving the (absolute) core URL at build time.
const load = (url: string) => import(url) as Promise<typeof import("./core.ts")>;
const boot = () =>
  load(__FL_CORE_URL__).then(
    (core) => core.boot(__FL_CONFIG__, features),
    (e) => console.warn("frameline: player core failed to load", e),
  );
// While this video is the control of a split test, its embed serves the test (null otherwise: esbuild drops the branch).
if (__FL_SPLIT_TEST__) serveSplitTest(__FL_SPLIT_TEST__, { code: __FL_CONFIG__.video.code, boot });
else boot();
