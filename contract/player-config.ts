/**
 * `__FL_CONFIG__`, the object the compiler bakes into a video's entry: the video
 * and its media, every live option group, the playlist with each item's media,
 * and the events URL. Inner option-group fields are the ones the player reads;
 * every one is optional so that older snapshots keep working (player/README.md
 * lists them).
 */

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

/** What the compiler bakes in as `__FL_SPLIT_TEST__`. */
export interface SplitTestEmbed {
  /** The test's public code. */
  code: string;
  workspace_code: string;
  events_url: string;
  /** Played when the events host cannot be asked. */
  control: { code: string; script_url: string };
}
