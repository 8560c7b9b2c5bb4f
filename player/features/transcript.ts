import type { Feature } from "../types.ts";
import { el } from "./lib/style.ts";
import { timedList } from "./lib/timed-list.ts";
import { cuesOf, pickTrack } from "./lib/vtt.ts";

/**
 * transcript_options {enabled, language}: the cues of the captions track in
 * `language` (else the default or first of captions_options.tracks) listed
 * under the player in a labelled region; the cue playback is in is highlighted
 * and a click on a cue seeks there.
 */
export const transcript: Feature = {
  name: "transcript",
  setup(player) {
    const track = pickTrack(player.settings, player.settings.transcript_options?.language);
    if (!track) return;
    const region = el("section", "fl-transcript", player.mount);
    region.setAttribute("aria-label", "Transcript");
    let off = () => {};
    let gone = false;
    cuesOf(track.src).then((cues) => {
      if (gone || !cues.length) return;
      off = timedList(
        player,
        region,
        "fl-transcript-cues",
        "fl-cue",
        "Transcript",
        cues.map((c) => ({ time_s: c.start, end_s: c.end, text: c.text })),
      );
    });
    return () => {
      gone = true;
      off();
      region.remove();
    };
  },
};
