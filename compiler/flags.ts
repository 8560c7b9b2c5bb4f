/**
 * The feature-flag rule, once (docs/architecture.md "A player feature is one folder
 * entry and one flag"). Each row names a feature, the option group that turns
 * it on and, when the feature needs content, the list that must be non-empty.
 * Everything else derives from this table: the esbuild `define` of build.ts,
 * the type of `__FL_FEATURES__` in player/globals.d.ts, the flags the browser
 * tests build with, and the table in player/README.md (flags.test.ts checks it).
 *
 * A new feature is one row here plus its module under player/features/,
 * imported by player/entry.ts behind `__FL_FEATURES__.<name>`.
 *
 * @example
 *   featureFlags({ chapters_options: { enabled: true, chapters: [{ time_s: 0, title: "Intro" }] } }).chapters; // true
 *   flagDefines(featureFlags(settings)); // { "__FL_FEATURES__.chapters": "true", ... }
 */
import type { GroupName } from "../contract/settings.ts";

interface FlagRule {
  /** The option group whose `enabled: true` turns the feature on. */
  readonly group: GroupName;
  /** A list in that group that must also be non-empty (a feature with nothing to show ships no code). */
  readonly nonEmpty?: string;
  /** False for a group without an `enabled` switch: the non-empty list alone turns it on. */
  readonly enabled?: false;
  /** A field of the group that must also hold this value (the playlist's course mode). */
  readonly equals?: readonly [field: string, value: string];
  /** The group's fields, any of which turns the feature on when true or a non-empty text, when its switch is not `enabled`. */
  readonly switches?: readonly string[];
  /** Another group's field whose non-empty value turns the feature on too: `[group, field]`. */
  readonly orField?: readonly [GroupName, string];
  /**
   * On instead when another feature is on and a field of its list entries is set:
   * `[feature, path]`, the path dotted from that feature's group, each list walked.
   */
  readonly via?: readonly (readonly [feature: string, path: string])[];
}

export const FEATURE_FLAGS = {
  chapters: { group: "chapters_options", nonEmpty: "chapters" },
  cta: { group: "cta_cards_options", nonEmpty: "cards" },
  captions: { group: "captions_options" },
  playlist: { group: "playlist_options", nonEmpty: "items" },
  autoplay: { group: "autoplay_options" },
  // The sales player (issue 15).
  timed_events: { group: "timed_events_options", nonEmpty: "events", enabled: false },
  headline: { group: "headline_options" },
  pitch: { group: "pitch_time_options" },
  cloak: { group: "cloak_options" },
  share: { group: "share_options", nonEmpty: "networks" },
  actions: { group: "actions_options", nonEmpty: "actions" },
  end_screen: { group: "end_screen_options" },
  thumbnail: { group: "thumbnail_options" },
  lead_form: { group: "lead_form_options" },
  watch_gate: { group: "watch_gate_options" },
  pixels: { group: "pixels_options" },
  sticky: { group: "sticky_options" },
  exit_intent: { group: "exit_intent_options" },
  countdown: { group: "countdown_options" },
  user_events: { group: "user_events_options", nonEmpty: "events" },
  // Courses and interactive video (issue 18).
  course: { group: "playlist_options", nonEmpty: "items", equals: ["playback_mode", "course"] },
  quiz: { group: "quiz_options", nonEmpty: "questions" },
  notes: { group: "notes_options", nonEmpty: "notes" },
  resume_any_device: { group: "cross_device_resume_options" },
  // Issue 19: a logo over the player (branding_options, or style_options.logo_url).
  branding: { group: "branding_options", switches: ["show_logo", "watermark"], orField: ["style_options", "logo_url"] },
  // Search: schema.org VideoObject JSON-LD in the page head; a transcript panel under the player.
  seo: { group: "seo_options", switches: ["title", "description", "transcript_enabled"] },
  transcript: { group: "transcript_options" },
  // Player polish: the fastest start, and pausing while the tab is hidden.
  turbo: { group: "turbo_options" },
  smart_pause: { group: "playback_options", switches: ["pause_when_hidden"] },
  // Funnels: a quiz choice or a CTA card that names next_video_code swaps the player to that video.
  funnel: {
    group: "quiz_options",
    via: [
      ["quiz", "questions.choices.next_video_code"],
      ["cta", "cards.next_video_code"],
    ],
  },
} as const satisfies Record<string, FlagRule>;

export type FeatureName = keyof typeof FEATURE_FLAGS;
export type FeatureFlags = Record<FeatureName, boolean>;

export const FEATURE_NAMES = Object.keys(FEATURE_FLAGS) as FeatureName[];

/** The object the entry reads; esbuild replaces each member with a literal, so `if (__FL_FEATURES__.x)` drops x's code when off. */
const FLAGS_OBJECT = "__FL_FEATURES__";

/** The define constant of one flag, e.g. `__FL_FEATURES__.chapters`. */
export const defineOf = (name: FeatureName): string => `${FLAGS_OBJECT}.${name}`;

/** Option groups as the settings hold them; anything else reads as "off". */
type SettingsLike = Readonly<Record<string, unknown>>;

/** A field that turns a feature on: true, or a non-empty text. */
const set = (v: unknown): boolean => (typeof v === "string" ? v.trim() !== "" : v != null && v !== false);

const field = (settings: SettingsLike, group: string, key: string): unknown => {
  const g = settings[group];
  return g && typeof g === "object" ? (g as Record<string, unknown>)[key] : undefined;
};

/** True when the dotted path, walking every list on the way, reaches a set value. */
function anySet(value: unknown, path: string[]): boolean {
  if (Array.isArray(value)) return value.some((v) => anySet(v, path));
  if (!path.length) return set(value);
  return !!value && typeof value === "object" && anySet((value as Record<string, unknown>)[path[0]!], path.slice(1));
}

function isOn(rule: FlagRule, settings: SettingsLike): boolean {
  if (rule.via) {
    return rule.via.some(([name, path]) => {
      const other = (FEATURE_FLAGS as Record<string, FlagRule>)[name]!;
      return isOn(other, settings) && anySet(settings[other.group], path.split("."));
    });
  }
  if (rule.orField) {
    const v = field(settings, rule.orField[0], rule.orField[1]);
    if (set(v)) return true;
  }
  const group = settings[rule.group];
  if (!group || typeof group !== "object") return false;
  const g = group as Record<string, unknown>;
  if (rule.switches) {
    if (!rule.switches.some((k) => g[k] === true || (typeof g[k] === "string" && set(g[k])))) return false;
  } else if (rule.enabled !== false && g.enabled !== true) return false;
  if (rule.equals && g[rule.equals[0]] !== rule.equals[1]) return false;
  if (!rule.nonEmpty) return true;
  const list = g[rule.nonEmpty];
  return Array.isArray(list) && list.length > 0;
}

/** Which features a video's live settings turn on. */
export function featureFlags(settings: SettingsLike): FeatureFlags {
  const flags = {} as FeatureFlags;
  for (const name of FEATURE_NAMES) flags[name] = isOn(FEATURE_FLAGS[name], settings);
  return flags;
}

/** Every flag as an esbuild `define` (a missing flag is off, never undefined in the bundle). */
export function flagDefines(flags: Partial<FeatureFlags>): Record<string, string> {
  return Object.fromEntries(FEATURE_NAMES.map((name) => [defineOf(name), String(flags[name] === true)]));
}

/** The flag table of player/README.md, generated from the rows. */
export function flagTableMarkdown(): string {
  const rows = FEATURE_NAMES.map((name) => {
    const { group, nonEmpty, enabled, equals, switches, orField, via } = FEATURE_FLAGS[name] as FlagRule;
    if (via) {
      const on = via.map(([f, path]) => `\`${defineOf(f as FeatureName)}\` and \`${(FEATURE_FLAGS as Record<string, FlagRule>)[f]!.group}.${path}\` set`);
      return [`\`${defineOf(name)}\``, on.join(", or ")];
    }
    const list =
      (nonEmpty ? `\`${enabled === false ? `${group}.` : ""}${nonEmpty}\` non-empty` : "") +
      (equals ? `${nonEmpty ? " and " : ""}\`${equals[0]}\` is \`"${equals[1]}"\`` : "");
    const on = (switches || ["enabled"]).map((k) => `\`${group}.${k}\``).join(" or ");
    const rule = enabled === false ? list : `${on}${list ? ` and ${list}` : ""}`;
    return [`\`${defineOf(name)}\``, orField ? `${rule}, or \`${orField.join(".")}\` set` : rule];
  });
  const table = [["define", "on when"], ...rows];
  const widths = [0, 1].map((c) => Math.max(...table.map((r) => r[c]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, c) => cell.padEnd(widths[c]!)).join(" | ")} |`;
  return [line(table[0]!), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}
