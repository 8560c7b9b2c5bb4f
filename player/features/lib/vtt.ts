/**
 * Caption files for the transcript and the search data: a WebVTT parser, the
 * track a language picks, and one fetch per file however many features read it.
 */
import type { CaptionTrackOption, PlayerSettings } from "../../types.ts";

export interface Cue {
  start: number;
  end: number;
  text: string;
}

/** `01:02:03.500` or `02:03.500` in seconds; NaN when it is not a timestamp. */
const seconds = (stamp: string): number => {
  const m = /^(?:(\d+):)?(\d{1,2}):(\d{2})(?:[.,](\d{1,3}))?$/.exec(stamp.trim());
  return m ? Number(m[1] || 0) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number((m[4] || "0").padEnd(3, "0")) / 1000 : NaN;
};

/** The cues of a WebVTT file in file order, their text without tags and with entities decoded; NOTE, STYLE and REGION blocks skipped. */
export function parseVtt(text: string): Cue[] {
  const cues: Cue[] = [];
  for (const block of text.replace(/\r\n?/g, "\n").split(/\n{2,}/)) {
    const lines = block.split("\n");
    const at = lines.findIndex((l) => l.includes("-->"));
    if (at < 0 || at > 1) continue;
    const [from, rest] = lines[at]!.split("-->");
    const start = seconds(from!);
    const end = seconds(rest!.trim().split(/\s+/)[0]!);
    const body = lines
      .slice(at + 1)
      .join(" ")
      .replace(/<[^>]*>/g, "")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&nbsp;/g, " ")
      .replace(/&amp;/g, "&")
      .replace(/\s+/g, " ")
      .trim();
    if (!Number.isNaN(start) && !Number.isNaN(end) && body) cues.push({ start, end, text: body });
  }
  return cues;
}

/** Seconds as an ISO 8601 duration (`PT1M5S`); null when unknown. */
export function isoDuration(s: number): string | null {
  if (!Number.isFinite(s) || s <= 0) return null;
  const total = Math.round(s);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  return "PT" + (h ? h + "H" : "") + (m ? m + "M" : "") + (sec || (!h && !m) ? sec + "S" : "");
}

/** A captions track with a file to fetch (the registry lets a track through without one). */
export type PlayableTrack = CaptionTrackOption & { src: string };

/** The captions track of `language`, else the default one, else the first; null without tracks. */
export function pickTrack(settings: PlayerSettings, language?: string | null): PlayableTrack | null {
  const tracks = (settings.captions_options?.tracks || []).filter((t): t is PlayableTrack => !!t?.src);
  return (
    (language && tracks.find((t) => t.srclang === language)) ||
    tracks.find((t) => t.default) ||
    tracks.find((t) => t.srclang === settings.captions_options?.default_language) ||
    tracks[0] ||
    null
  );
}

const fetched = new Map<string, Promise<Cue[]>>();

/** The cues of a caption file, fetched once per page; none when it cannot be read. */
export function cuesOf(src: string): Promise<Cue[]> {
  let p = fetched.get(src);
  if (!p) {
    p = fetch(src)
      .then((r) => (r.ok ? r.text() : ""))
      .then(parseVtt, () => []);
    fetched.set(src, p);
  }
  return p;
}
