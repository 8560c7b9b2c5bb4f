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
import { timedEvents } from "./features/timed-events.ts";
import { headline } from "./features/headline.ts";
import { pitch } from "./features/pitch.ts";
import { cloak } from "./features/cloak.ts";
import { share } from "./features/share.ts";
import { actions } from "./features/actions.ts";
import { endScreen } from "./features/end-screen.ts";
import { thumbnail } from "./features/thumbnail.ts";
import { leadForm } from "./features/lead-form.ts";
import { watchGate } from "./features/watch-gate.ts";
import { pixels } from "./features/pixels.ts";
import { sticky } from "./features/sticky.ts";
import { exitIntent } from "./features/exit-intent.ts";
import { countdown } from "./features/countdown.ts";
import { userEvents } from "./features/user-events.ts";
import { course } from "./features/course.ts";
import { quiz } from "./features/quiz.ts";
import { notes } from "./features/notes.ts";
import { resumeAnyDevice } from "./features/resume-any-device.ts";
import { branding } from "./features/branding.ts";
import { seo } from "./features/seo.ts";
import { transcript } from "./features/transcript.ts";
import { turbo } from "./features/turbo.ts";
import { smartPause } from "./features/smart-pause.ts";
import { funnel } from "./features/funnel.ts";
import { serveSplitTest } from "./split-test.ts";
import { locate, resolveConfig, scriptUrl } from "./locate.ts";
import { guard } from "./protection.ts";

// Read while this script runs first: later, document.currentScript is another script or none.
const here = scriptUrl();
const features: Feature[] = [];
if (__FL_FEATURES__.captions) features.push(captions);
if (__FL_FEATURES__.chapters) features.push(chapters);
if (__FL_FEATURES__.cta) features.push(ctaCards);
if (__FL_FEATURES__.playlist) features.push(playlist);
if (__FL_FEATURES__.thumbnail) features.push(thumbnail);
if (__FL_FEATURES__.headline) features.push(headline);
if (__FL_FEATURES__.cloak) features.push(cloak);
if (__FL_FEATURES__.pitch) features.push(pitch);
if (__FL_FEATURES__.timed_events) features.push(timedEvents);
if (__FL_FEATURES__.actions) features.push(actions);
if (__FL_FEATURES__.share) features.push(share);
if (__FL_FEATURES__.end_screen) features.push(endScreen);
if (__FL_FEATURES__.lead_form) features.push(leadForm);
if (__FL_FEATURES__.watch_gate) features.push(watchGate);
if (__FL_FEATURES__.pixels) features.push(pixels);
if (__FL_FEATURES__.sticky) features.push(sticky);
if (__FL_FEATURES__.exit_intent) features.push(exitIntent);
if (__FL_FEATURES__.countdown) features.push(countdown);
if (__FL_FEATURES__.user_events) features.push(userEvents);
// After the playlist: the course decorates its list and buttons.
if (__FL_FEATURES__.course) features.push(course);
if (__FL_FEATURES__.quiz) features.push(quiz);
if (__FL_FEATURES__.notes) features.push(notes);
if (__FL_FEATURES__.resume_any_device) features.push(resumeAnyDevice);
if (__FL_FEATURES__.branding) features.push(branding);
if (__FL_FEATURES__.seo) features.push(seo);
if (__FL_FEATURES__.transcript) features.push(transcript);
if (__FL_FEATURES__.turbo) features.push(turbo);
if (__FL_FEATURES__.smart_pause) features.push(smartPause);
// The funnel finds the next video's script beside this one.
if (__FL_FEATURES__.funnel) features.push(funnel(here));
// Autoplay last: every other feature is listening before playback can start.
if (__FL_FEATURES__.autoplay) features.push(autoplay);

const config = resolveConfig(__FL_CONFIG__, locate(here));
// A variable argument keeps esbuild from resolving the core at build time; it sits beside this entry.
const load = (url: string) => import(url) as Promise<typeof import("./core.ts")>;
const start = (ready: typeof config) =>
  load(new URL(__FL_CORE_URL__, here).href).then(
    (core) => core.boot(ready, features),
    (e) => console.warn("frameline: player core failed to load", e),
  );
// A protected video checks the page's site (and fetches its token) before anything loads.
const boot = () => (__FL_PROTECTION__ ? guard(__FL_PROTECTION__, config).then((ready) => ready && start(ready)) : start(config));
// While this video is the control of a split test, its embed serves the test (null otherwise: esbuild drops the branch).
if (__FL_SPLIT_TEST__) serveSplitTest(__FL_SPLIT_TEST__, here, { code: __FL_CONFIG__.video.code, boot });
else boot();
