/**
 * fast-check arbitraries derived from a route's TypeBox schema (as Elysia keeps
 * it in `app.routes`), so a new route is covered without writing anything:
 * `validOf` makes values the schema accepts (as far as a generator can know),
 * `hostileOf` mixes in, at any depth, the values that once broke the service
 * (issue 14): NUL, lone surrogates, 1 MB strings, JSON 10,000 deep, integers
 * past 2^63, far dates, wrong types.
 */
import fc from "fast-check";
import { Kind } from "@sinclair/typebox";
import { PROPERTY_LIMITS } from "../../server/http/schemas.ts";

type Schema = Record<string | symbol, unknown> & {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
};

/** JSON nested `depth` levels deep, built without recursion. */
export function nested(depth: number, leaf: unknown = "x"): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** The values issue 14 sent to every field. */
export const HOSTILE_VALUES: readonly unknown[] = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udc00y",
  "😀 \u202eevil\u202c \uffff 漢字 مرحبا",
  "x".repeat(1_048_576),
  nested(10_000),
  2 ** 63,
  2 ** 53 + 1,
  -(2 ** 63) - 1,
  1e308,
  1e20, // 99999999999999999999 as JSON.parse reads it
  -1,
  0,
  1.5,
  "1",
  "9999-12-31",
  "9999-12-31T23:59:59Z",
  "0000-01-01",
  true,
  null,
  [],
  {},
  "x",
];

const SAMPLE_STRINGS: Record<string, string> = {
  "^[0-9a-fA-F]{64}$": "a".repeat(64),
  "^[0-9a-fA-F]{32}$": "b".repeat(32),
};

function stringArbitrary(s: Schema): fc.Arbitrary<string> {
  if (s.pattern !== undefined) {
    const fixed = SAMPLE_STRINGS[s.pattern];
    if (fixed !== undefined) return fc.constant(fixed);
    if (s.pattern.startsWith("^https?://")) return fc.webUrl().filter((u) => u.length <= (s.maxLength ?? 2048));
  }
  if (s.format === "iso-date")
    return fc.date({ min: new Date("1970-01-01"), max: new Date("2100-12-31"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
  if (s.format === "iso-date-time")
    return fc.date({ min: new Date("1970-01-01"), max: new Date("2100-12-31"), noInvalidDate: true }).map((d) => d.toISOString());
  const min = s.minLength ?? 0;
  const max = Math.min(s.maxLength ?? 64, min + 64);
  // Any well-formed Unicode (emoji, CJK, right-to-left, noncharacters), never NUL.
  return fc.string({ unit: "grapheme", minLength: min, maxLength: max }).filter((x) => !x.includes("\0") && x.length >= min && x.length <= (s.maxLength ?? 64));
}

const propertyMap = fc.dictionary(
  fc.string({ minLength: 1, maxLength: PROPERTY_LIMITS.keyLength }).filter((k) => !k.includes("\0") && k !== "__proto__"),
  fc.oneof(
    fc.string({ maxLength: PROPERTY_LIMITS.valueLength }).filter((v) => !v.includes("\0")),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
  ),
  { maxKeys: PROPERTY_LIMITS.keys },
);

const jsonObject = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 20 }).filter((k) => !k.includes("\0") && k !== "__proto__"),
  fc.jsonValue({ maxDepth: 3 }).filter((v) => !JSON.stringify(v).includes("\\u0000")),
  { maxKeys: 5 },
);

/** Values the schema accepts. */
export function validOf(schema: Schema): fc.Arbitrary<unknown> {
  const kind = schema[Kind] as string | undefined;
  if (kind === "PropertyMap") return propertyMap;
  if (kind === "JsonObject") return jsonObject;
  if (kind === "JsonValue") return fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean());
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map(validOf));
  if (schema.const !== undefined) return fc.constant(schema.const);
  switch (schema.type) {
    case "object": {
      const props = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, child] of Object.entries(props)) record[name] = validOf(child);
      return fc.record(record, { requiredKeys: [...required].filter((k) => k in props) });
    }
    case "array": {
      const min = schema.minItems ?? 0;
      return fc.array(validOf(schema.items ?? {}), { minLength: min, maxLength: Math.min(schema.maxItems ?? 3, min + 3) });
    }
    case "string":
      return stringArbitrary(schema);
    case "integer":
      return fc.integer({ min: Math.max(schema.minimum ?? -1e6, -1e6), max: Math.min(schema.maximum ?? 1e6, 1e6) });
    case "number":
      return fc.double({ min: Math.max(schema.minimum ?? -1e6, -1e6), max: Math.min(schema.maximum ?? 1e6, 1e6), noNaN: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A value of the schema in which, with some chance, any field (or the whole) is one of HOSTILE_VALUES. */
export function hostileOf(schema: Schema): fc.Arbitrary<unknown> {
  const hostile = fc.constantFrom(...HOSTILE_VALUES);
  const kind = schema[Kind] as string | undefined;
  if (kind || schema.anyOf || schema.const !== undefined) return fc.oneof({ weight: 3, arbitrary: validOf(schema) }, { weight: 1, arbitrary: hostile });
  switch (schema.type) {
    case "object": {
      const props = schema.properties ?? {};
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, child] of Object.entries(props)) record[name] = hostileOf(child);
      const required = (schema.required ?? []).filter((k) => k in props);
      return fc.oneof({ weight: 8, arbitrary: fc.record(record, { requiredKeys: required }) }, { weight: 1, arbitrary: hostile });
    }
    case "array":
      return fc.oneof({ weight: 4, arbitrary: fc.array(hostileOf(schema.items ?? {}), { maxLength: 3 }) }, { weight: 1, arbitrary: hostile });
    default:
      return fc.oneof({ weight: 2, arbitrary: validOf(schema) }, { weight: 1, arbitrary: hostile });
  }
}

/** Every field path of an object schema (dotted), with its schema: where the probe puts each hostile value. */
export function fieldsOf(schema: Schema, prefix: string[] = []): { path: string[]; schema: Schema }[] {
  const out: { path: string[]; schema: Schema }[] = [];
  if (schema.type === "object" && schema.properties && !schema[Kind]?.toString().startsWith("Json")) {
    for (const [name, child] of Object.entries(schema.properties)) {
      out.push({ path: [...prefix, name], schema: child });
      out.push(...fieldsOf(child, [...prefix, name]));
    }
  } else if (schema.type === "array" && schema.items) {
    out.push({ path: [...prefix, "0"], schema: schema.items });
    out.push(...fieldsOf(schema.items, [...prefix, "0"]));
  }
  return out;
}

/** `base` with `value` at `path` (arrays get the value at index 0). */
export function withValue(base: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (head === "0") {
    const list = Array.isArray(base) ? [...base] : [];
    list[0] = withValue(list[0], rest, value);
    return list;
  }
  const object = typeof base === "object" && base !== null && !Array.isArray(base) ? { ...(base as Record<string, unknown>) } : {};
  object[head!] = withValue(object[head!], rest, value);
  return object;
}
