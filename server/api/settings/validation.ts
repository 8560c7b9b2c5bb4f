/**
 * Validation of merged settings (docs/api.md "Video settings" rule 4): every group's
 * TypeBox schema from the registry, run on the merged result, so a small payload
 * can still yield 422. Field names are dotted paths such as
 * `style_options.main_color` or `chapters_options.chapters.0.time_s`.
 */
import { FormatRegistry, Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { validation, type ApiError } from "../../errors.ts";
import { CSS_COLOR_FORMAT, CSS_SELECTOR_FORMAT, DATE_TIME_FORMAT, OPTION_GROUPS, WEB_URL_FORMAT, type Settings } from "../../../contract/settings.ts";
import { isCssSelector, isDateTime, isWebUrl } from "./formats.ts";

// CSS Color Module Level 4 named colours, plus `transparent` and `currentcolor`.
const NAMED_COLORS = new Set(
  (
    "aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown burlywood cadetblue " +
    "chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan darkgoldenrod darkgray darkgreen darkgrey " +
    "darkkhaki darkmagenta darkolivegreen darkorange darkorchid darkred darksalmon darkseagreen darkslateblue darkslategray " +
    "darkslategrey darkturquoise darkviolet deeppink deepskyblue dimgray dimgrey dodgerblue firebrick floralwhite forestgreen " +
    "fuchsia gainsboro ghostwhite gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki " +
    "lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan lightgoldenrodyellow lightgray lightgreen " +
    "lightgrey lightpink lightsalmon lightseagreen lightskyblue lightslategray lightslategrey lightsteelblue lightyellow lime " +
    "limegreen linen magenta maroon mediumaquamarine mediumblue mediumorchid mediumpurple mediumseagreen mediumslateblue " +
    "mediumspringgreen mediumturquoise mediumvioletred midnightblue mintcream mistyrose moccasin navajowhite navy oldlace olive " +
    "olivedrab orange orangered orchid palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru pink plum " +
    "powderblue purple rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown seagreen seashell sienna silver " +
    "skyblue slateblue slategray slategrey snow springgreen steelblue tan teal thistle tomato turquoise violet wheat white " +
    "whitesmoke yellow yellowgreen transparent currentcolor"
  ).split(" "),
);

const HEX = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const NUMBER = String.raw`[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?`;
const COMPONENT = `(?:${NUMBER}(?:%|deg|grad|rad|turn)?|none)`;
// rgb()/hsl()/hwb()/lab()/lch()/oklab()/oklch(): three components, comma- or space-separated, optional alpha.
const FUNCTIONAL = new RegExp(
  String.raw`^(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\(\s*${COMPONENT}(?:\s*,\s*|\s+)${COMPONENT}(?:\s*,\s*|\s+)${COMPONENT}(?:\s*(?:,|\/)\s*${COMPONENT})?\s*\)$`,
  "i",
);

/** True for a colour a browser's CSS parser accepts in the forms editors produce. */
export function isCssColor(value: string): boolean {
  const v = value.trim();
  return HEX.test(v) || NAMED_COLORS.has(v.toLowerCase()) || FUNCTIONAL.test(v);
}

FormatRegistry.Set(CSS_COLOR_FORMAT, isCssColor);
FormatRegistry.Set(CSS_SELECTOR_FORMAT, isCssSelector);
FormatRegistry.Set(WEB_URL_FORMAT, isWebUrl);
FormatRegistry.Set(DATE_TIME_FORMAT, isDateTime);

const SettingsSchema = Type.Object(Object.fromEntries(OPTION_GROUPS.map((g) => [g.name, g.schema])), { additionalProperties: true });
const check = TypeCompiler.Compile(SettingsSchema);

function fieldOf(path: string): string {
  return path
    .replace(/^\//, "")
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}

interface ErrorLike {
  path: string;
  message: string;
  value: unknown;
  schema: { error?: unknown };
}

function describe(error: ErrorLike): string {
  if (/required property/i.test(error.message)) return "is required";
  // A hard-required field sent as null is missing, not malformed.
  if (error.value === null && typeof error.schema.error === "string" && !error.schema.error.includes("or null")) return "is required";
  if (typeof error.schema.error === "string") return error.schema.error;
  return error.message.replace(/^Expected /, "must be ");
}

type Group = Record<string, unknown>;
const on = (g: unknown): g is Group => typeof g === "object" && g !== null && (g as Group).enabled === true;
const missing = (v: unknown) => v === undefined || v === null || v === "";

/**
 * Rules that tie one field to another (a schema checks each field alone): what
 * an enabled group needs to act in the player. Run only on settings whose
 * fields are each valid.
 */
function dependentErrors(settings: Settings): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const need = (field: string, when: string) => (errors[field] = [`The ${field} field is required when ${when}.`]);
  if (on(settings.pitch_time_options) && missing(settings.pitch_time_options.time_s)) need("pitch_time_options.time_s", "pitch time is enabled");
  if (on(settings.countdown_options) && missing(settings.countdown_options.ends_at)) need("countdown_options.ends_at", "the countdown is enabled");
  const thumb = settings.thumbnail_options;
  if (on(thumb) && thumb.mode === "custom" && missing(thumb.custom_url)) need("thumbnail_options.custom_url", "the thumbnail mode is custom");
  const end = settings.end_screen_options;
  if (on(end) && end.mode === "text" && missing(end.text) && missing(end.button_url)) need("end_screen_options.text", "the end screen mode is text");
  const actions = settings.actions_options?.actions;
  if (Array.isArray(actions))
    actions.forEach((a: Group, i) => {
      if ((a?.type === "redirect" || a?.type === "cta") && missing(a.url)) need(`actions_options.actions.${i}.url`, `the action is ${a.type}`);
      if ((a?.trigger ?? "time") === "time" && missing(a?.time_s)) need(`actions_options.actions.${i}.time_s`, "the action runs at a time");
    });
  return errors;
}

/** The 422 for invalid merged settings, or undefined when they are valid. */
export function settingsErrors(settings: Settings): ApiError | undefined {
  if (check.Check(settings)) {
    const dependent = dependentErrors(settings);
    return Object.keys(dependent).length ? validation(dependent) : undefined;
  }
  const errors: Record<string, string[]> = {};
  for (const error of check.Errors(settings) as Iterable<ErrorLike>) {
    const field = fieldOf(error.path);
    // A union reports its branches too; keep the first, most specific text per field.
    if (errors[field]) continue;
    errors[field] = [`The ${field} field ${describe(error)}.`];
  }
  // A failing child also fails its parent object; the child is the useful one.
  for (const field of Object.keys(errors)) if (Object.keys(errors).some((f) => f !== field && f.startsWith(field + "."))) delete errors[field];
  return validation(errors);
}

export function assertValidSettings(settings: Settings): void {
  const error = settingsErrors(settings);
  if (error) throw error;
}
