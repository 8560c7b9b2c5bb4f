/** Shared TypeBox helpers for request schemas. */
import { t } from "elysia";
import type { TLiteral, TUnion } from "@sinclair/typebox";

/**
 * One of a fixed set of strings. A union of literals rather than `t.UnionEnum`,
 * because Elysia fills an absent optional UnionEnum with its first value.
 */
export function oneOf<const T extends readonly string[]>(values: T, options: { error?: string; description?: string } = {}): TUnion<TLiteral<T[number]>[]> {
  return t.Union(
    values.map((v) => t.Literal(v)),
    options,
  ) as unknown as TUnion<TLiteral<T[number]>[]>;
}
