/**
 * `__FL_CONFIG__`, the object the compiler bakes into a video's entry: the video
 * and its media, every live option group and the playlist with each item's media.
 * Nothing about a deployment is baked in: media are keys, resolved by the player
 * against where its script was served from (player/locate.ts). The option groups are the registry's (contract/settings.ts),
 * every field optional so that older snapshots keep working (player/README.md
 * lists the fields the player reads). Types only: the registry's TypeBox
 * schemas never enter a browser bundle.
 */
import type { PartialSettings, Settings } from "./settings.ts";

export type Orientation = "landscape" | "portrait";

export interface Rendition {
  /** A media key (`videos/<code>/...`) the player resolves, or a URL (bundles built before keys). */
  hls: string | null;
  poster: string | null;
  w: number;
  h: number;
}

/** The entries of a group's list, as the registry types them. */
type EntryOf<List> = NonNullable<List> extends readonly (infer Entry)[] ? Entry : never;

export type ChapterOption = EntryOf<Settings["chapters_options"]["chapters"]>;
export type CtaCardOption = EntryOf<Settings["cta_cards_options"]["cards"]>;
export type CaptionTrackOption = EntryOf<Settings["captions_options"]["tracks"]>;
/** A reveal: when playback first reaches time_s, page elements matching selector are shown or hidden. */
export type TimedEventOption = EntryOf<Settings["timed_events_options"]["events"]>;
export type ActionOption = EntryOf<Settings["actions_options"]["actions"]>;
export type LeadField = EntryOf<Settings["lead_form_options"]["fields"]>;
/** A quiz question: at time_s playback pauses and asks; a choice may jump to a time (branching). */
export type QuizQuestionOption = EntryOf<Settings["quiz_options"]["questions"]>;
/** A creator's timed note, listed beside the player. */
export type NoteOption = EntryOf<Settings["notes_options"]["notes"]>;
export type UserEventOption = EntryOf<Settings["user_events_options"]["events"]>;

/**
 * Every live option group, each field optional: a snapshot deployed before a
 * group or field existed lacks it, and the player falls back to its default.
 */
export type PlayerSettings = PartialSettings;

type PlaylistOptions = Settings["playlist_options"];

/** A playlist item as the registry types it, with the media the compiler resolved. */
export type PlaylistItem = EntryOf<PlaylistOptions["items"]> & {
  hls: string | null;
  poster: string | null;
  /** The item's video requires signed URLs: the player asks for a token for it before loading it. */
  signed?: true;
};

export type PlaylistConfig = Pick<
  PlaylistOptions,
  "playback_mode" | "auto_advance" | "auto_advance_delay_ms" | "loop" | "lesson_navigation" | "playlist_chrome"
> & {
  items: PlaylistItem[];
};

export interface PlayerConfig {
  video: {
    id: number;
    code: string;
    title: string;
    workspace_code: string;
    default_orientation: Orientation;
    plain_mode: boolean;
    landscape: Rendition | null;
    portrait: Rendition | null;
    /** When the video was uploaded (ISO 8601), only with the seo feature (its JSON-LD `uploadDate`). */
    upload_date?: string;
  };
  settings: PlayerSettings;
  playlist: PlaylistConfig | null;
  /** The events host, found by the player from where its script came (player/locate.ts). */
  events_url: string;
}

/** What the compiler bakes in (`__FL_CONFIG__`): no events host (bundles built before keys carried one). */
export type BakedPlayerConfig = Omit<PlayerConfig, "events_url"> & { events_url?: string };

/** What the compiler bakes in as `__FL_SPLIT_TEST__`. */
export interface SplitTestEmbed {
  /** The test's public code. */
  code: string;
  workspace_code: string;
  /** The events host: from where the test's script came when absent (player/locate.ts). */
  events_url?: string;
  /** Played when the events host cannot be asked: its script relative to the test's (`../p/<code>.js`), or a URL. */
  control: { code: string; script_url: string };
}

/**
 * A protected video's rules as its entry carries them (`__FL_PROTECTION__`, README
 * "Playback protection"): the sites allowed to play it and whether its media needs a
 * token the player asks the events host for. Null for a public video.
 */
export interface PlaybackGuard {
  allowed_origins: string[];
  signed: boolean;
}
