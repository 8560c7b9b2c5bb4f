/**
 * The registry of option groups every video carries (docs/api.md "Settings option
 * groups"): name, defaults, inner schema, and whether `copy_from` copies it or
 * the API may set it. Schemas type the fields we know and let unknown nested
 * keys through, because docs/api.md "Video settings" rule 3 says nested keys are not
 * filtered. The server runs them on the merged result (server/api/settings/validation.ts, rule 4).
 */
import { type Static, Type, type TObject, type TProperties, type TSchema } from "@sinclair/typebox";

export interface OptionGroup {
  name: GroupName;
  /** One of the 18 groups `copy_from` copies (docs/api.md "Videos" rule 1). */
  copied: boolean;
  /** The five groups draft/deploy drop silently (docs/api.md "Video settings" rule 3). */
  apiWritable: boolean;
  defaults: Record<string, unknown>;
  /** Inner validation of the group, run on merged settings. */
  schema: TObject;
}

/** Format names checked by validation.ts (registered there with TypeBox's FormatRegistry). */
export const CSS_COLOR_FORMAT = "frameline-css-color";
export const CSS_SELECTOR_FORMAT = "frameline-css-selector";
export const WEB_URL_FORMAT = "frameline-web-url";
export const DATE_TIME_FORMAT = "frameline-date-time";

// ---- field helpers ----
const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
const bool = () => opt(Type.Boolean({ error: "must be true or false" }));
const int = (minimum = 0, maximum?: number) =>
  opt(
    Type.Integer({
      minimum,
      ...(maximum === undefined ? {} : { maximum }),
      error: `must be an integer${maximum === undefined ? ` of at least ${minimum}` : ` from ${minimum} to ${maximum}`}`,
    }),
  );
const num = (minimum = 0) => opt(Type.Number({ minimum, error: `must be a number of at least ${minimum}` }));
const text = (maxLength = 1000) =>
  opt(Type.Union([Type.String({ maxLength }), Type.Null()], { error: `must be a string of at most ${maxLength} characters, or null` }));
const url = () => text(2048);
const color = () => Type.String({ format: CSS_COLOR_FORMAT, error: "must be a valid CSS colour" });
/** A colour the merged settings must always hold (docs/api.md: hard-required). */
const requiredColor = () => color();
const optColor = () => opt(Type.Union([color(), Type.Null()], { error: "must be a valid CSS colour or null" }));
const oneOf = <const T extends string>(values: readonly T[]) =>
  opt(
    Type.Union(
      values.map((v) => Type.Literal(v)),
      { error: `must be one of ${values.join(", ")}` },
    ),
  );
const list = <T extends TSchema>(item: T, maxItems = 500) => opt(Type.Array(item, { maxItems, error: `must be a list of at most ${maxItems} entries` }));
/** A link the player opens: http or https only, so a setting can never become a `javascript:` URL on a customer's page. */
const webUrl = () =>
  opt(
    Type.Union([Type.String({ format: WEB_URL_FORMAT, maxLength: 2048 }), Type.Null()], {
      error: "must be an http or https URL of at most 2048 characters, or null",
    }),
  );
const seconds = () => Type.Number({ minimum: 0, maximum: 604_800, error: "must be a number of seconds from 0 to 604800" });
const obj = <P extends TProperties>(props: P) => Type.Object(props, { additionalProperties: true, error: "must be an object" });
/** A video the player swaps to in place (a funnel step): a video code of the same workspace, checked at save time. */
const nextVideo = () =>
  opt(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], { error: "must be a video code of 1 to 64 characters, or null" }));

// ---- list entries ----
const Chapter = obj({ time_s: opt(Type.Number({ minimum: 0, error: "must be a number of at least 0" })), title: text(255) });
// Entry shapes the player reads (player/types.ts): a card shows from time_s for duration_s seconds.
const CtaCard = obj({
  time_s: num(),
  duration_s: opt(Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { error: "must be a number of at least 0, or null" })),
  text: text(500),
  button_text: text(100),
  url: url(),
  next_video_code: nextVideo(),
});
const CaptionTrack = obj({ src: url(), srclang: text(16), label: text(100), default: bool() });
export const PlaylistItem = obj({
  video_code: Type.String({ minLength: 1, maxLength: 64, error: "must be a string of 1 to 64 characters" }),
  title: text(255),
  lesson_label: text(255),
  duration_s: opt(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { error: "must be a whole number of seconds, or null" })),
  thumb_url: url(),
});

/** A playlist item as it is read (the API's item, the player's): every field present, null when it was not set. */
export function readItem(item: Pick<Static<typeof PlaylistItem>, "video_code"> & Partial<Static<typeof PlaylistItem>>) {
  return {
    video_code: item.video_code,
    title: item.title ?? null,
    lesson_label: item.lesson_label ?? null,
    duration_s: item.duration_s ?? null,
    thumb_url: item.thumb_url ?? null,
  };
}
// ---- the sales player's entries (player/README.md "Inner fields the player reads") ----
export const TIMED_EVENT_ACTIONS = ["show", "hide"] as const;
/** A reveal: when playback first reaches time_s, page elements matching selector are shown or hidden. */
const TimedEvent = obj({
  time_s: seconds(),
  selector: opt(
    Type.Union([Type.String({ format: CSS_SELECTOR_FORMAT, maxLength: 500 }), Type.Null()], {
      error: "must be a valid CSS selector of at most 500 characters, or null",
    }),
  ),
  action: oneOf(TIMED_EVENT_ACTIONS),
  name: text(64),
  persist: bool(),
});
export const ACTION_TRIGGERS = ["time", "end"] as const;
export const ACTION_TYPES = ["redirect", "cta", "pause"] as const;
const Action = obj({
  trigger: oneOf(ACTION_TRIGGERS),
  time_s: opt(seconds()),
  type: Type.Union(
    ACTION_TYPES.map((v) => Type.Literal(v)),
    { error: `must be one of ${ACTION_TYPES.join(", ")}` },
  ),
  url: webUrl(),
  text: text(500),
  button_text: text(100),
});
export const SHARE_NETWORKS = ["facebook", "x", "linkedin", "whatsapp", "telegram", "reddit", "pinterest", "email"] as const;
export const LEAD_FIELDS = ["email", "first_name", "last_name", "phone"] as const;
/** When the lead form shows (player/features/lead-form.ts): at time_s, at the viewer's first pause after it, or when they leave after it. */
export const LEAD_FORM_TRIGGERS = ["time", "pause", "exit"] as const;
/** A custom event the player sends (as `track(name)`) when playback first reaches time_s. */
const UserEvent = obj({
  time_s: seconds(),
  name: Type.String({ minLength: 1, maxLength: 64, error: "must be a string of 1 to 64 characters" }),
  value: opt(
    Type.Union([Type.Number({ minimum: -1_000_000_000, maximum: 1_000_000_000 }), Type.Null()], { error: "must be a number within ±1000000000, or null" }),
  ),
});

// ---- courses and interactive video (player/README.md) ----
const idText = () => Type.String({ minLength: 1, maxLength: 64, error: "must be a string of 1 to 64 characters" });
/**
 * A choice of a quiz question: `correct` marks a right answer; `jump_to_s` sends playback there (branching);
 * `next_video_code` swaps the player to that video in place (a funnel step), and wins over `jump_to_s`.
 */
const QuizChoice = obj({
  id: idText(),
  text: Type.String({ minLength: 1, maxLength: 255, error: "must be a string of 1 to 255 characters" }),
  correct: bool(),
  jump_to_s: opt(Type.Union([seconds(), Type.Null()], { error: "must be a number of seconds from 0 to 604800, or null" })),
  next_video_code: nextVideo(),
});
/** At time_s playback pauses and asks; a required question cannot be skipped. */
const QuizQuestion = obj({
  id: idText(),
  time_s: seconds(),
  question: Type.String({ minLength: 1, maxLength: 500, error: "must be a string of 1 to 500 characters" }),
  choices: Type.Array(QuizChoice, { minItems: 1, maxItems: 10, error: "must be a list of 1 to 10 choices" }),
  required: bool(),
});
/** A creator's timed note, listed beside the player; a click seeks to time_s. */
const Note = obj({
  time_s: seconds(),
  text: Type.String({ minLength: 1, maxLength: 1000, error: "must be a string of 1 to 1000 characters" }),
  url: webUrl(),
});

/**
 * One group's entry: its defaults are checked against its own schema's type (extra
 * keys pass, as the schema lets them through), and the schema keeps its static type.
 */
const group = <P extends TProperties>(
  defaults: NoInfer<Static<TObject<P>>> & Record<string, unknown>,
  props: P,
  flags: { copied?: boolean; apiWritable?: boolean } = {},
) => ({
  copied: flags.copied ?? false,
  apiWritable: flags.apiWritable ?? true,
  defaults,
  schema: obj(props),
});

export const PLAYLIST_MODES = ["linear", "course"] as const;
export const LESSON_NAVIGATION = ["sidebar", "next-button", "both", "none"] as const;
export const PLAYLIST_CHROME = ["rail", "button"] as const;

/**
 * The registry, keyed by group name in docs/api.md's order (OPTION_GROUPS keeps
 * it): each schema keeps its static type, which `Settings` is built from.
 */
const GROUPS = {
  // The 18 groups copied by copy_from, in docs/api.md's order.
  style_options: group(
    { main_color: "#2563eb", background_color: "#000000", text_color: "#ffffff", font_family: "system-ui", border_radius: 8, logo_url: null },
    {
      main_color: requiredColor(),
      background_color: requiredColor(),
      text_color: optColor(),
      font_family: text(255),
      border_radius: int(0, 64),
      logo_url: url(),
    },
    { copied: true },
  ),
  playback_options: group(
    {
      controls: true,
      show_play_button: true,
      allow_seek: true,
      allow_speed: true,
      loop: false,
      start_time_s: 0,
      preload: "metadata",
      hls_engine: "auto",
      pause_when_hidden: false,
      resume_when_visible: true,
    },
    {
      controls: bool(),
      show_play_button: bool(),
      allow_seek: bool(),
      allow_speed: bool(),
      loop: bool(),
      start_time_s: num(),
      preload: oneOf(["none", "metadata", "auto"]),
      hls_engine: oneOf(["auto", "hlsjs", "native"]),
      // Smart pause (player/features/smart-pause.ts): pause while the tab is hidden, and go on when it is back.
      pause_when_hidden: bool(),
      resume_when_visible: bool(),
    },
    { copied: true },
  ),
  autoplay_options: group(
    { enabled: false, muted: true, unmute_prompt: true, unmute_prompt_text: "Click to unmute" },
    { enabled: bool(), muted: bool(), unmute_prompt: bool(), unmute_prompt_text: text(255) },
    { copied: true },
  ),
  progress_options: group(
    { enabled: true, background_color: "#ffffff33", bar_color: "#2563eb", height_px: 4, fast_start: false },
    { enabled: bool(), background_color: requiredColor(), bar_color: requiredColor(), height_px: int(1, 32), fast_start: bool() },
    { copied: true },
  ),
  actions_options: group({ enabled: false, actions: [] }, { enabled: bool(), actions: list(Action, 100) }, { copied: true, apiWritable: false }),
  pixels_options: group(
    { enabled: false, facebook_pixel_id: null, google_tag_id: null, tiktok_pixel_id: null },
    { enabled: bool(), facebook_pixel_id: text(64), google_tag_id: text(64), tiktok_pixel_id: text(64) },
    { copied: true },
  ),
  continue_watching_options: group(
    { enabled: true, prompt_text: "Continue where you left off?", min_seconds: 10 },
    { enabled: bool(), prompt_text: text(255), min_seconds: num() },
    { copied: true },
  ),
  turbo_options: group({ enabled: false, preload_segments: 1 }, { enabled: bool(), preload_segments: int(0, 10) }, { copied: true }),
  timed_events_options: group({ events: [] }, { events: list(TimedEvent, 200) }, { copied: true }),
  user_events_options: group({ enabled: false, events: [] }, { enabled: bool(), events: list(UserEvent, 100) }, { copied: true }),
  chapters_options: group({ enabled: false, chapters: [] }, { enabled: bool(), chapters: list(Chapter) }, { copied: true }),
  playlist_options: group(
    {
      enabled: false,
      playback_mode: "linear",
      playlist_code: null,
      items: [],
      auto_advance: true,
      auto_advance_delay_ms: 3000,
      loop: false,
      lesson_navigation: "sidebar",
      playlist_chrome: "rail",
    },
    {
      enabled: bool(),
      playback_mode: oneOf(PLAYLIST_MODES),
      playlist_code: text(128),
      items: list(PlaylistItem, 1000),
      auto_advance: bool(),
      auto_advance_delay_ms: int(0, 30000),
      loop: bool(),
      lesson_navigation: oneOf(LESSON_NAVIGATION),
      playlist_chrome: oneOf(PLAYLIST_CHROME),
    },
    { copied: true },
  ),
  engagement_options: group({ enabled: true, heartbeat_s: 5 }, { enabled: bool(), heartbeat_s: int(1, 60) }, { copied: true }),
  lead_form_options: group(
    {
      enabled: false,
      trigger: "time",
      time_s: 0,
      fields: ["email"],
      title: "Enter your email to keep watching",
      button_text: "Continue",
      skippable: true,
      skip_text: "Skip",
    },
    {
      enabled: bool(),
      trigger: oneOf(LEAD_FORM_TRIGGERS),
      time_s: opt(seconds()),
      fields: opt(
        Type.Array(
          Type.Union(
            LEAD_FIELDS.map((v) => Type.Literal(v)),
            { error: `must be one of ${LEAD_FIELDS.join(", ")}` },
          ),
          {
            minItems: 1,
            maxItems: LEAD_FIELDS.length,
            uniqueItems: true,
            contains: Type.Literal("email"),
            error: `must list email and any of ${LEAD_FIELDS.slice(1).join(", ")}, each once`,
          },
        ),
      ),
      title: text(255),
      button_text: text(64),
      skippable: bool(),
      skip_text: text(64),
    },
    { copied: true },
  ),
  notes_options: group({ enabled: false, notes: [] }, { enabled: bool(), notes: list(Note, 200) }, { copied: true }),
  quiz_options: group({ enabled: false, questions: [] }, { enabled: bool(), questions: list(QuizQuestion, 50) }, { copied: true }),
  watch_gate_options: group(
    { enabled: false, gate_time_s: 0, message: null },
    { enabled: bool(), gate_time_s: opt(seconds()), message: text(500) },
    { copied: true },
  ),
  cross_device_resume_options: group({ enabled: false }, { enabled: bool() }, { copied: true }),
  // The rest a VSL player needs.
  captions_options: group(
    { enabled: false, default_language: null, tracks: [], font_size: "medium" },
    { enabled: bool(), default_language: text(16), tracks: list(CaptionTrack, 50), font_size: oneOf(["small", "medium", "large"]) },
  ),
  cta_cards_options: group({ enabled: false, cards: [] }, { enabled: bool(), cards: list(CtaCard, 100) }),
  cloak_options: group({ enabled: false }, { enabled: bool() }, { apiWritable: false }),
  headline_options: group(
    { enabled: false, text: null, color: "#ffffff", background_color: "#000000aa", font_size_px: 28 },
    { enabled: bool(), text: text(500), color: optColor(), background_color: optColor(), font_size_px: int(10, 96) },
    { apiWritable: false },
  ),
  pitch_time_options: group(
    { enabled: false, time_s: null, persist: true },
    { enabled: bool(), time_s: opt(Type.Union([seconds(), Type.Null()], { error: "must be a number of seconds from 0 to 604800, or null" })), persist: bool() },
    { apiWritable: false },
  ),
  share_options: group(
    { enabled: false, networks: [] },
    {
      enabled: bool(),
      networks: opt(
        Type.Array(
          Type.Union(
            SHARE_NETWORKS.map((v) => Type.Literal(v)),
            { error: `must be one of ${SHARE_NETWORKS.join(", ")}` },
          ),
          { maxItems: SHARE_NETWORKS.length, uniqueItems: true, error: `must list each of ${SHARE_NETWORKS.join(", ")} at most once` },
        ),
      ),
    },
    { apiWritable: false },
  ),
  controls_options: group(
    { play: true, progress: true, time: true, volume: true, fullscreen: true, settings: true, pip: false },
    { play: bool(), progress: bool(), time: bool(), volume: bool(), fullscreen: bool(), settings: bool(), pip: bool() },
  ),
  thumbnail_options: group(
    { enabled: false, mode: "poster", custom_url: null, show_play_overlay: true, overlay_text: null },
    { enabled: bool(), mode: oneOf(["poster", "custom", "none"]), custom_url: webUrl(), show_play_overlay: bool(), overlay_text: text(255) },
  ),
  end_screen_options: group(
    { enabled: false, mode: "last_frame", text: null, button_text: null, button_url: null },
    { enabled: bool(), mode: oneOf(["last_frame", "poster", "replay", "text"]), text: text(500), button_text: text(100), button_url: webUrl() },
  ),
  speed_options: group(
    { speeds: [0.5, 1, 1.25, 1.5, 2], default_speed: 1 },
    {
      speeds: list(Type.Number({ exclusiveMinimum: 0, maximum: 16 }), 16),
      default_speed: opt(Type.Number({ exclusiveMinimum: 0, maximum: 16, error: "must be a number above 0 and at most 16" })),
    },
  ),
  sticky_options: group(
    { enabled: false, position: "bottom-right", width_px: 320 },
    { enabled: bool(), position: oneOf(["bottom-right", "bottom-left", "top-right", "top-left"]), width_px: int(160, 640) },
  ),
  exit_intent_options: group(
    { enabled: false, message: null, button_text: null, button_url: null },
    { enabled: bool(), message: text(500), button_text: text(100), button_url: webUrl() },
  ),
  countdown_options: group(
    { enabled: false, ends_at: null, text: null, expired_text: null },
    {
      enabled: bool(),
      ends_at: opt(Type.Union([Type.String({ format: DATE_TIME_FORMAT }), Type.Null()], { error: "must be an ISO 8601 date-time with a time zone, or null" })),
      text: text(255),
      expired_text: text(255),
    },
  ),
  split_test_options: group({ enabled: false, split_test_id: null, variations: [] }, { enabled: bool(), variations: list(obj({}), 20) }),
  seo_options: group({ title: null, description: null, transcript_enabled: false }, { title: text(255), description: text(2000), transcript_enabled: bool() }),
  branding_options: group(
    { show_logo: false, logo_url: null, logo_link: null, watermark: false },
    { show_logo: bool(), logo_url: url(), logo_link: url(), watermark: bool() },
  ),
  analytics_options: group({ enabled: true, track_ip: false }, { enabled: bool(), track_ip: bool() }),
  transcript_options: group({ enabled: false, language: null }, { enabled: bool(), language: text(16) }),
};

type Registry = typeof GROUPS;
/** The name of an option group, e.g. `style_options`. */
export type GroupName = keyof Registry;

/** Every option group with its fields as the registry's schemas type them. */
export type Settings = { [K in GroupName]: Static<Registry[K]["schema"]> };

/**
 * Any subset of the groups, each any subset of its fields: a draft or deploy
 * body (docs/api.md "Video settings" rule 1), or a snapshot written before a
 * group or field existed.
 */
export type PartialSettings = { [K in GroupName]?: Partial<Settings[K]> };

// Object.keys types its result as string[]; the keys are exactly the registry's.
export const GROUP_NAMES = Object.keys(GROUPS) as GroupName[];
export const OPTION_GROUPS: readonly OptionGroup[] = GROUP_NAMES.map((name) => ({ name, ...GROUPS[name] }));
export const COPIED_GROUPS = OPTION_GROUPS.filter((g) => g.copied).map((g) => g.name);
export const API_WRITABLE_GROUPS = OPTION_GROUPS.filter((g) => g.apiWritable).map((g) => g.name);

/** The settings of a new video: every group at its defaults. */
export function defaultSettings(): Settings {
  return withDefaults({});
}

/**
 * Stored settings completed with defaults for groups added since the row was
 * written. Shares the stored objects (callers must not mutate the result).
 */
export function withDefaults(stored: Partial<Settings>): Settings {
  // Built group by group, so no type pairs each name with its group's value; each is that group's stored value or its defaults.
  return Object.fromEntries(OPTION_GROUPS.map((g) => [g.name, stored[g.name] ?? structuredClone(g.defaults)])) as Settings;
}
