/**
 * The registry of option groups every video carries (SPEC.md "Settings option
 * groups"): name, defaults, and whether `copy_from` copies it or the API may
 * set it. Inner validation of each group lives with the settings module.
 */

export interface OptionGroup {
  name: string;
  /** One of the 18 groups `copy_from` copies (SPEC.md "Videos" rule 1). */
  copied: boolean;
  /** The five groups draft/deploy drop silently (SPEC.md "Video settings" rule 3). */
  apiWritable: boolean;
  defaults: Record<string, unknown>;
}

const group = (name: string, defaults: Record<string, unknown>, flags: { copied?: boolean; apiWritable?: boolean } = {}): OptionGroup => ({
  name,
  copied: flags.copied ?? false,
  apiWritable: flags.apiWritable ?? true,
  defaults,
});

export const OPTION_GROUPS: readonly OptionGroup[] = [
  // The 18 groups copied by copy_from, in SPEC.md's order.
  group("style_options", { main_color: "#2563eb", background_color: "#000000", text_color: "#ffffff", font_family: "system-ui", border_radius: 8, logo_url: null }, { copied: true }),
  group("playback_options", { controls: true, show_play_button: true, allow_seek: true, allow_speed: true, loop: false, start_time_s: 0, preload: "metadata" }, { copied: true }),
  group("autoplay_options", { enabled: false, muted: true, unmute_prompt: true, unmute_prompt_text: "Click to unmute" }, { copied: true }),
  group("progress_options", { enabled: true, background_color: "#ffffff33", bar_color: "#2563eb", height_px: 4, fast_start: false }, { copied: true }),
  group("actions_options", { enabled: false, actions: [] }, { copied: true, apiWritable: false }),
  group("pixels_options", { enabled: false, facebook_pixel_id: null, google_tag_id: null, tiktok_pixel_id: null }, { copied: true }),
  group("continue_watching_options", { enabled: true, prompt_text: "Continue where you left off?", min_seconds: 10 }, { copied: true }),
  group("turbo_options", { enabled: false, preload_segments: 1 }, { copied: true }),
  group("timed_events_options", { events: [] }, { copied: true }),
  group("user_events_options", { enabled: false, events: [] }, { copied: true }),
  group("chapters_options", { enabled: false, chapters: [] }, { copied: true }),
  group("playlist_options", { enabled: false, playback_mode: "linear", playlist_code: null, items: [], auto_advance: true, auto_advance_delay_ms: 3000, loop: false, lesson_navigation: "sidebar", playlist_chrome: "rail" }, { copied: true }),
  group("engagement_options", { enabled: true, heartbeat_s: 5 }, { copied: true }),
  group("lead_form_options", { enabled: false, time_s: 0, fields: ["email"], title: "Enter your email to keep watching", skippable: true }, { copied: true }),
  group("notes_options", { enabled: false, notes: [] }, { copied: true }),
  group("quiz_options", { enabled: false, questions: [] }, { copied: true }),
  group("watch_gate_options", { enabled: false, gate_time_s: 0, message: null }, { copied: true }),
  group("cross_device_resume_options", { enabled: false }, { copied: true }),
  // The rest a VSL player needs.
  group("captions_options", { enabled: false, default_language: null, tracks: [], font_size: "medium" }),
  group("cta_cards_options", { enabled: false, cards: [] }),
  group("cloak_options", { enabled: false }, { apiWritable: false }),
  group("headline_options", { enabled: false, text: null, color: "#ffffff" }, { apiWritable: false }),
  group("pitch_time_options", { enabled: false, time_s: null }, { apiWritable: false }),
  group("share_options", { enabled: false, networks: [] }, { apiWritable: false }),
  group("controls_options", { play: true, progress: true, time: true, volume: true, fullscreen: true, settings: true, pip: false }),
  group("thumbnail_options", { mode: "poster", custom_url: null, show_play_overlay: true }),
  group("end_screen_options", { mode: "last_frame", text: null, button_text: null, button_url: null }),
  group("speed_options", { speeds: [0.5, 1, 1.25, 1.5, 2], default_speed: 1 }),
  group("sticky_options", { enabled: false, position: "bottom-right" }),
  group("exit_intent_options", { enabled: false, message: null }),
  group("countdown_options", { enabled: false, ends_at: null, text: null }),
  group("split_test_options", { enabled: false, split_test_id: null, variations: [] }),
  group("seo_options", { title: null, description: null, transcript_enabled: false }),
  group("branding_options", { show_logo: false, logo_url: null, logo_link: null, watermark: false }),
  group("analytics_options", { enabled: true, track_ip: false }),
  group("transcript_options", { enabled: false, language: null }),
];

export const GROUP_NAMES = OPTION_GROUPS.map((g) => g.name);
export const COPIED_GROUPS = OPTION_GROUPS.filter((g) => g.copied).map((g) => g.name);
export const READ_ONLY_GROUPS = OPTION_GROUPS.filter((g) => !g.apiWritable).map((g) => g.name);

export type Settings = Record<string, Record<string, unknown>>;

/** The settings of a new video: every group at its defaults. */
export function defaultSettings(): Settings {
  return Object.fromEntries(OPTION_GROUPS.map((g) => [g.name, structuredClone(g.defaults)]));
}

/** Stored settings completed with defaults for groups added since the row was written. */
export function withDefaults(stored: Settings): Settings {
  const settings = defaultSettings();
  for (const name of GROUP_NAMES) if (stored[name]) settings[name] = stored[name];
  return settings;
}
