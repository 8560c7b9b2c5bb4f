/**
 * The shapes the compiler bakes into a video's entry (`__FL_CONFIG__`) and the
 * wire shapes the player sends. Inner option-group fields are the ones the
 * player reads; every one is optional so that older snapshots keep working
 * (player/README.md lists them for the settings module).
 */
import type { PlayerError } from "./errors.ts";

export type Orientation = "landscape" | "portrait";

export interface Rendition {
  hls: string | null;
  poster: string | null;
  w: number;
  h: number;
}

export interface ChapterOption {
  time_s: number;
  title: string;
}
export interface CtaCardOption {
  time_s: number;
  duration_s?: number;
  text?: string;
  button_text?: string;
  url?: string;
}
export interface CaptionTrackOption {
  src: string;
  srclang: string;
  label?: string;
  default?: boolean;
}

export interface PlayerSettings {
  style_options?: {
    main_color?: string;
    background_color?: string;
    text_color?: string;
    font_family?: string;
    border_radius?: number;
    logo_url?: string | null;
  };
  progress_options?: { enabled?: boolean; background_color?: string; bar_color?: string; height_px?: number; fast_start?: boolean };
  autoplay_options?: { enabled?: boolean; muted?: boolean; unmute_prompt?: boolean; unmute_prompt_text?: string };
  playback_options?: {
    controls?: boolean;
    show_play_button?: boolean;
    allow_seek?: boolean;
    allow_speed?: boolean;
    loop?: boolean;
    start_time_s?: number;
    preload?: string;
    hls_engine?: "auto" | "hlsjs" | "native";
  };
  controls_options?: { play?: boolean; progress?: boolean; time?: boolean; volume?: boolean; fullscreen?: boolean; settings?: boolean; pip?: boolean };
  branding_options?: { show_logo?: boolean; logo_url?: string | null; logo_link?: string | null; watermark?: boolean };
  speed_options?: { speeds?: number[]; default_speed?: number };
  continue_watching_options?: { enabled?: boolean; prompt_text?: string; min_seconds?: number };
  engagement_options?: { enabled?: boolean; heartbeat_s?: number };
  analytics_options?: { enabled?: boolean };
  chapters_options?: { enabled?: boolean; chapters?: ChapterOption[] };
  cta_cards_options?: { enabled?: boolean; cards?: CtaCardOption[] };
  captions_options?: { enabled?: boolean; default_language?: string | null; tracks?: CaptionTrackOption[]; font_size?: "small" | "medium" | "large" };
  timed_events_options?: { events?: TimedEventOption[] };
  headline_options?: { enabled?: boolean; text?: string | null; color?: string | null; background_color?: string | null; font_size_px?: number };
  pitch_time_options?: { enabled?: boolean; time_s?: number | null; persist?: boolean };
  cloak_options?: { enabled?: boolean };
  share_options?: { enabled?: boolean; networks?: string[] };
  actions_options?: { enabled?: boolean; actions?: ActionOption[] };
  end_screen_options?: {
    enabled?: boolean;
    mode?: "last_frame" | "poster" | "replay" | "text";
    text?: string | null;
    button_text?: string | null;
    button_url?: string | null;
  };
  thumbnail_options?: {
    enabled?: boolean;
    mode?: "poster" | "custom" | "none";
    custom_url?: string | null;
    show_play_overlay?: boolean;
    overlay_text?: string | null;
  };
  lead_form_options?: {
    enabled?: boolean;
    time_s?: number;
    fields?: LeadField[];
    title?: string | null;
    button_text?: string | null;
    skippable?: boolean;
    skip_text?: string | null;
  };
  watch_gate_options?: { enabled?: boolean; gate_time_s?: number; message?: string | null };
  pixels_options?: { enabled?: boolean; facebook_pixel_id?: string | null; google_tag_id?: string | null; tiktok_pixel_id?: string | null };
  sticky_options?: { enabled?: boolean; position?: "bottom-right" | "bottom-left" | "top-right" | "top-left"; width_px?: number };
  exit_intent_options?: { enabled?: boolean; message?: string | null; button_text?: string | null; button_url?: string | null };
  countdown_options?: { enabled?: boolean; ends_at?: string | null; text?: string | null; expired_text?: string | null };
  user_events_options?: { enabled?: boolean; events?: UserEventOption[] };
  quiz_options?: { enabled?: boolean; questions?: QuizQuestionOption[] };
  notes_options?: { enabled?: boolean; notes?: NoteOption[] };
  cross_device_resume_options?: { enabled?: boolean };
  seo_options?: { title?: string | null; description?: string | null; transcript_enabled?: boolean };
  transcript_options?: { enabled?: boolean; language?: string | null };
  [group: string]: Record<string, unknown> | undefined;
}

export interface TimedEventOption {
  time_s: number;
  selector?: string | null;
  action?: "show" | "hide";
  name?: string | null;
  persist?: boolean;
}
export interface ActionOption {
  trigger?: "time" | "end";
  time_s?: number;
  type: "redirect" | "cta" | "pause";
  url?: string | null;
  text?: string | null;
  button_text?: string | null;
}
export type LeadField = "email" | "first_name" | "last_name" | "phone";
/** A quiz question: at time_s playback pauses and asks; a choice may jump to a time (branching). */
export interface QuizQuestionOption {
  id: string;
  time_s: number;
  question: string;
  choices: { id: string; text: string; correct?: boolean; jump_to_s?: number | null }[];
  required?: boolean;
}

/** A creator's timed note, listed beside the player. */
export interface NoteOption {
  time_s: number;
  text: string;
  url?: string | null;
}

export interface UserEventOption {
  time_s: number;
  name: string;
  value?: number | null;
}

export interface PlaylistItem {
  video_code: string;
  title?: string | null;
  lesson_label?: string | null;
  duration_s?: number | null;
  thumb_url?: string | null;
  hls: string | null;
  poster: string | null;
}

export interface PlaylistConfig {
  playback_mode?: "linear" | "course";
  auto_advance?: boolean;
  auto_advance_delay_ms?: number;
  loop?: boolean;
  lesson_navigation?: "sidebar" | "next-button" | "both" | "none";
  playlist_chrome?: "rail" | "button";
  items: PlaylistItem[];
}

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
  events_url: string;
}

/** What is playing now: the container video or a playlist item. */
export interface Source {
  code: string;
  title: string;
  hls: string | null;
  poster: string | null;
}

/** One player event as it travels in a `/v1/collect` batch. */
export interface CollectEvent {
  type: string;
  /** Milliseconds since the epoch, taken when the event happened. */
  t: number;
  /** Position in the video, seconds. */
  video_time: number;
  [field: string]: unknown;
}

/** Body of `POST {events_url}/v1/collect` (docs/api.md: the player's own design). */
export interface CollectBatch {
  workspace_code: string;
  video_code: string;
  session_id: string;
  device_id: string;
  events: CollectEvent[];
}

/** Events on the player's own bus (controllers and features talk through these). */
export interface PlayerEvents {
  /** A new source was attached (poster shown, nothing loaded yet). */
  source: Source;
  /** hls.js parsed the stream's renditions (heights, best first as listed); native HLS never sends it. */
  levels: { heights: number[] };
  /** Pick a rendition: its index in `levels`, or -1 for Auto. */
  level: { index: number };
  /** The viewer pressed Retry on the error overlay: the source loads again where it stopped. */
  retry: undefined;
  /** The viewer (or autoplay) asked to play. */
  intent: { auto: boolean };
  /** The first frame after a play intent is on screen. */
  started: { ms: number };
  /** Something failed, in hls.js's shape (player/errors.ts); `fatal` means playback of this source stopped. */
  error: PlayerError;
  /** Analytics event to send (type + extra fields). */
  collect: { type: string; fields?: Record<string, unknown> };
  /** The current source played to its end. */
  ended: Source;
  /** Controllers and features are set up: the page API reports `ready`. */
  ready: undefined;
  /** A seek asked through `seek()` (page API, replay): features that guard seeking let it through. */
  seek: { to: number };
  /** The page called `unlock()`: a watch gate opens. */
  unlock: undefined;
  /** A timed reveal (or the pitch) was reached; `restored` when a returning viewer gets it at load. */
  timed_event: TimedEventData;
  /** A viewer answered the lead form or watch gate. */
  lead: LeadData;
  /** A viewer answered a quiz question (emitted by the quiz feature). */
  quiz_answer: Record<string, unknown>;
  destroy: undefined;
}

export interface TimedEventData {
  name: string | null;
  time_s: number;
  selector: string | null;
  action: "show" | "hide";
  restored: boolean;
}

export interface LeadData {
  email: string;
  first_name?: string;
  last_name?: string;
  phone?: string;
}

/**
 * The facade a feature module receives. Features are bundled into the
 * per-video entry, the facade lives in the core: features use only this
 * interface (and `import type`), so no core code is shipped twice.
 */
export interface PlayerApi {
  readonly config: PlayerConfig;
  readonly settings: PlayerSettings;
  readonly plain: boolean;
  /** The element the player rendered into (`.frameline-player`). */
  readonly mount: HTMLElement;
  readonly root: HTMLElement;
  readonly video: HTMLVideoElement;
  /** Overlay layer above the video (cards, prompts). */
  readonly layer: HTMLElement;
  /** Progress track (chapter markers go here); null in plain mode or without a bar. */
  readonly track: HTMLElement | null;
  /** Control row (feature buttons go here); null in plain mode. */
  readonly controls: HTMLElement | null;
  readonly source: Source;
  /** Where the next play intent starts, seconds (resume, start_time_s). */
  startAt: number;
  on<K extends keyof PlayerEvents>(name: K, fn: (data: PlayerEvents[K]) => void): () => void;
  emit<K extends keyof PlayerEvents>(name: K, data: PlayerEvents[K]): void;
  /** Play intent: loads the stream (hls.js only now, only if needed) and plays. */
  play(auto?: boolean): void;
  /** Replaces the source (playlist); `play` starts it at once. */
  load(source: Source, play?: boolean): void;
  /** Sends an analytics event in the next batch. */
  collect(type: string, fields?: Record<string, unknown>): void;
  /**
   * Seeks to `seconds` (before playback: where playback will start), never past
   * `seekLimit`; emits `seek` first so guards (cloak) let it through. Controls
   * that seek should call this too.
   */
  seek(seconds: number): void;
  /** Furthest point a seek or playback may reach (a watch gate sets it); Infinity when free. Controls honour it. */
  seekLimit: number;
  /** Says `text` through the player's live region (screen readers): overlays that appear call it. */
  announce(text: string): void;
  /**
   * Adds a button to the control row (before `before`, else before the mute
   * button) that opens a keyboard-operable menu of `items()` (read at each
   * opening); null without a control row.
   */
  menu(cls: string, label: string, items: () => MenuItem[], before?: Element | null): HTMLButtonElement | null;
}

export interface MenuItem {
  label: string;
  checked?: boolean;
  run(): void;
}

/** A feature module baked into a video's entry when its flag is on. */
export interface Feature {
  name: string;
  /** Returns its teardown, like a controller's destroy. */
  setup(player: PlayerApi): (() => void) | undefined;
}
