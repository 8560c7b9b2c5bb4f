/**
 * Which overlay has the stage over the video when several want it (player/overlays.ts,
 * player/README.md "Overlays"), highest first. Lower wins; within a rank, the first to
 * ask. Constants only: esbuild inlines them, so a feature that imports one ships no core code.
 *
 * 1. error: a fatal error with Retry (nothing else can go on)
 * 2. watch gate: playback cannot pass it
 * 3. lead form: playback is held for it
 * 4. quiz question: playback is held for it
 * 5. exit intent: the viewer is leaving; the seller's last word
 * 6. end screen, and the playlist's "Up next"
 * 7. resume prompt ("Continue where you left off?", "Continue at 12:34")
 * 8. unmute prompt of a muted autoplay
 * 9. CTA cards and action CTAs
 * 10. headline over the poster
 * 11. thumbnail overlay text
 */
export const RANK_ERROR = 1;
export const RANK_GATE = 2;
export const RANK_LEAD = 3;
export const RANK_QUIZ = 4;
export const RANK_EXIT = 5;
export const RANK_END = 6;
export const RANK_RESUME = 7;
export const RANK_UNMUTE = 8;
export const RANK_CTA = 9;
export const RANK_HEADLINE = 10;
export const RANK_THUMB = 11;
