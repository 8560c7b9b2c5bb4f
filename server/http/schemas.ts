/**
 * The request-schema helpers every route uses (docs/architecture.md "Edges check, storage
 * trusts"): each value is checked where it enters, so a database error is an
 * outage, never a client's mistake. README.md "Limits" lists the bounds.
 *
 * - `Text`: a string without NUL characters or unpaired UTF-16 surrogates (neither
 *   can be stored: PostgreSQL refuses NUL, and a lone surrogate has no UTF-8 form),
 *   with a maximum length. Every other Unicode string is taken and kept exactly.
 * - `Id`, `Int`, `Num` (JSON bodies), `QueryInt`, `PageNumber` (query strings):
 *   numbers within what their column holds.
 * - `DateOnly`, `DateTime`: calendar dates and ISO 8601 date-times from 1970-01-01
 *   to 2100-12-31 (what both engines store).
 * - `JsonObject`: a free-form object of bounded depth whose keys and strings are `Text`.
 * - `PropertyMap`: docs/api.md's `properties`: at most 20 keys of 1 to 40 characters,
 *   values strings of at most 100 characters, numbers or booleans.
 * - `PathId`: a numeric id in a path, checked by `parseId` (anything else is a 404).
 *
 * The free-form objects are their own TypeBox kinds, checked by a function,
 * because Elysia's body normaliser turns a non-object sent for an object schema
 * into `{}` before validation (`true` would pass as empty properties).
 */
import { t } from "elysia";
import { FormatRegistry, Kind, type StringOptions, type TLiteral, type TProperties, type TUnion, Type, TypeRegistry } from "@sinclair/typebox";

/**
 * One of a fixed set of strings. A union of literals rather than `t.UnionEnum`,
 * because Elysia fills an absent optional UnionEnum with its first value.
 */
export function oneOf<const T extends string>(values: readonly T[], options: { error?: string; description?: string } = {}): TUnion<TLiteral<T>[]> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  );
}

// ---- strings

/** The string format of `Text` (in the OpenAPI description too). */
export const TEXT_FORMAT = "text";

/** True when `value` can be stored and read back exactly: no NUL character, no unpaired surrogate. */
export function isSafeText(value: string): boolean {
  // ES2024's String.prototype.isWellFormed: Bun has it, but the shared lib (ES2023, for the browser parts too) does not name it.
  return !value.includes("\0") && (value as string & { isWellFormed(): boolean }).isWellFormed();
}

/** What the 422 says about a string that is not `isSafeText`. */
export const UNSAFE_TEXT = "must not contain NUL characters or unpaired UTF-16 surrogates";

FormatRegistry.Set(TEXT_FORMAT, isSafeText);

/** A string that storage can keep exactly, at most `maxLength` UTF-16 code units long. */
export function Text(options: StringOptions & { maxLength: number; error?: string }) {
  return t.String({ ...options, format: TEXT_FORMAT });
}

/**
 * A numeric id in a path. Not refused by validation: the route passes it to
 * `parseId`, and anything that is not an id resolves to nothing (a 404).
 */
export function PathId(description: string) {
  return t.String({ description, [PATH_ID]: true });
}
/** Marks `PathId` strings (the schema audit test accepts them without `Text`). */
export const PATH_ID = "x-path-id";

// ---- numbers

/** Ids are bigint columns; a JSON number carries them exactly up to 2^53 - 1. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;
/** A page number; with at most 500 per page its offset stays far inside a bigint. */
export const MAX_PAGE = 1_000_000;

// Body numbers use TypeBox's own types, which take JSON numbers only (Elysia's `t.Integer`
// also takes "1", a string); query values are always strings, so `QueryInt` converts them.

/** An id of a bigint column in a JSON body: 1 to 2^53 - 1. */
export function Id(options: { error?: string; description?: string } = {}) {
  return Type.Integer({ minimum: 1, maximum: MAX_ID, ...options });
}

/** An integer from `minimum` to `maximum` in a JSON body. */
export function Int(minimum: number, maximum: number, options: { error?: string; description?: string } = {}) {
  return Type.Integer({ minimum, maximum, ...options });
}

/** A number from `minimum` to `maximum` in a JSON body. */
export function Num(minimum: number, maximum: number, options: { error?: string; description?: string } = {}) {
  return Type.Number({ minimum, maximum, ...options });
}

/** An integer from `minimum` to `maximum` in a query string. */
export function QueryInt(minimum: number, maximum: number, options: { error?: string; description?: string } = {}) {
  return t.Integer({ minimum, maximum, ...options });
}

export function PageNumber(options: { description?: string } = {}) {
  return QueryInt(1, MAX_PAGE, { error: `The page must be an integer from 1 to ${MAX_PAGE}.`, ...options });
}

// ---- dates

/** The first and last day any date may name (PostgreSQL and ClickHouse DateTime both hold them). */
export const DATE_MIN = "1970-01-01";
export const DATE_MAX = "2100-12-31";
const DATE_MIN_MS = Date.UTC(1970, 0, 1);
const DATE_END_MS = Date.UTC(2101, 0, 1);
export const DATE_FORMAT = "iso-date";
export const DATE_TIME_FORMAT = "iso-date-time";

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// RFC 3339 with the forms ISO 8601 clients send: optional seconds and fraction, Z or an offset.
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** Milliseconds of a YYYY-MM-DD calendar date at UTC midnight, or undefined when it is no real date or outside DATE_MIN..DATE_MAX. */
export function parseDateOnly(raw: string): number | undefined {
  const m = CALENDAR_DATE.exec(raw);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (ms < DATE_MIN_MS || ms >= DATE_END_MS) return undefined;
  return new Date(ms).toISOString().slice(0, 10) === raw ? ms : undefined;
}

/** Milliseconds of an ISO 8601 date-time, or undefined when it is malformed or outside DATE_MIN..DATE_MAX. */
export function parseDateTime(raw: string): number | undefined {
  const m = DATE_TIME.exec(raw);
  if (!m || parseDateOnly(m[1]!) === undefined || Number(m[2]) > 23 || Number(m[3]) > 59 || Number(m[4] ?? 0) > 59) return undefined;
  const ms = Date.parse(raw.replace(" ", "T"));
  return Number.isFinite(ms) && ms >= DATE_MIN_MS && ms < DATE_END_MS ? ms : undefined;
}

FormatRegistry.Set(DATE_FORMAT, (raw) => parseDateOnly(raw) !== undefined);
FormatRegistry.Set(DATE_TIME_FORMAT, (raw) => parseDateTime(raw) !== undefined);

export function DateOnly(options: { error?: string; description?: string } = {}) {
  return t.String({ maxLength: 10, ...options, format: DATE_FORMAT });
}

export function DateTime(options: { error?: string; description?: string } = {}) {
  return t.String({ maxLength: 40, ...options, format: DATE_TIME_FORMAT });
}

// ---- free-form objects

/** How deep any JSON body may nest (README "Limits"); no documented body comes near it. */
export const MAX_JSON_DEPTH = 32;

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Walks a JSON value without recursion and returns why it is refused: deeper
 * than `maxDepth` (the value itself is level 1), or a key or string that is not
 * `isSafeText`.
 */
export function jsonProblem(value: unknown, maxDepth: number): string | undefined {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (typeof node === "string") {
      if (!isSafeText(node)) return `holds a string that ${UNSAFE_TEXT}`;
    } else if (typeof node === "object" && node !== null) {
      if (depth > maxDepth) return `nests deeper than ${maxDepth} levels`;
      if (Array.isArray(node)) for (const item of node) stack.push([item, depth + 1]);
      else
        for (const [key, item] of Object.entries(node)) {
          if (!isSafeText(key)) return `has a key that ${UNSAFE_TEXT}`;
          stack.push([item, depth + 1]);
        }
    }
  }
  return undefined;
}

/** docs/api.md "Limits": properties per event. */
export const PROPERTY_LIMITS = { keys: 20, keyLength: 40, valueLength: 100 } as const;

export type PropertyValue = string | number | boolean;

/** Why `value` is not a docs/api.md `properties` object, or undefined. */
export function propertiesProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return "must be an object of strings, numbers or booleans";
  const entries = Object.entries(value);
  if (entries.length > PROPERTY_LIMITS.keys) return `must have at most ${PROPERTY_LIMITS.keys} keys`;
  for (const [key, item] of entries) {
    if (key.length === 0 || key.length > PROPERTY_LIMITS.keyLength) return `must have keys of 1 to ${PROPERTY_LIMITS.keyLength} characters`;
    if (!isSafeText(key)) return `has a key that ${UNSAFE_TEXT}`;
    if (typeof item === "string") {
      if (item.length > PROPERTY_LIMITS.valueLength) return `must have values of at most ${PROPERTY_LIMITS.valueLength} characters (${key})`;
      if (!isSafeText(item)) return `has a value that ${UNSAFE_TEXT} (${key})`;
    } else if (typeof item !== "boolean" && !(typeof item === "number" && Number.isFinite(item))) {
      return `must have values that are strings, numbers or booleans (${key})`;
    }
  }
  return undefined;
}

/** The depth bound a free-form kind carries (a plain key, so it is also in the OpenAPI description). */
const MAX_DEPTH_KEY = "x-max-depth";

/** Each free-form kind: why it refuses a value (undefined: valid). */
const KINDS: Record<string, (schema: Record<string, unknown>, value: unknown) => string | undefined> = {
  JsonObject: (schema, value) => (isPlainObject(value) ? jsonProblem(value, schema[MAX_DEPTH_KEY] as number) : "must be a JSON object"),
  JsonValue: (schema, value) => jsonProblem(value, schema[MAX_DEPTH_KEY] as number),
  PropertyMap: (_, value) => propertiesProblem(value),
};
for (const [kind, problem] of Object.entries(KINDS)) TypeRegistry.Set(kind, (schema: Record<string, unknown>, value) => problem(schema, value) === undefined);

/** Why a free-form schema refused `value` (http/errors-plugin.ts asks it for the 422's text), or undefined. */
export function explain(schema: unknown, value: unknown): string | undefined {
  const kind = (schema as { [Kind]?: string } | null)?.[Kind];
  return kind !== undefined && Object.hasOwn(KINDS, kind) ? KINDS[kind]!(schema as Record<string, unknown>, value) : undefined;
}

/**
 * A JSON object, at most `maxDepth` levels deep counted from the object itself,
 * whose keys and strings are `Text`. For free-form extras (`conversion_data`)
 * and the settings payload; `properties` documents known keys without checking them.
 */
export function JsonObject(options: { maxDepth: number; description?: string; properties?: TProperties }) {
  const { maxDepth, description, properties } = options;
  return Type.Unsafe<Record<string, unknown>>({
    [Kind]: "JsonObject",
    [MAX_DEPTH_KEY]: maxDepth,
    description: `${description ? `${description} ` : ""}A JSON object at most ${maxDepth} levels deep; no key or string may hold NUL or an unpaired surrogate.`,
    // Documentation only (the OpenAPI description shows them): the check above is the whole validation.
    ...(properties ? { properties } : {}),
  });
}

/** A JSON value (an extra field of a player event), checked like `JsonObject`'s contents. */
export function JsonValue(options: { maxDepth: number }) {
  return Type.Unsafe<unknown>({ [Kind]: "JsonValue", [MAX_DEPTH_KEY]: options.maxDepth });
}

/** docs/api.md's `properties` (custom events, player events, browser conversions). */
export function PropertyMap(description = "") {
  const { keys, keyLength, valueLength } = PROPERTY_LIMITS;
  return Type.Unsafe<Record<string, PropertyValue>>({
    [Kind]: "PropertyMap",
    description: `${description}Up to ${keys} keys of 1 to ${keyLength} characters; values are strings of at most ${valueLength} characters, numbers or booleans.`,
    maxProperties: keys,
  });
}
