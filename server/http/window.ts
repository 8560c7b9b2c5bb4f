/**
 * The reporting window of a read (`from`, `to`, `tz`; docs/api.md "Analytics
 * reads"): calendar days in a time zone, checked and turned into the bounds the
 * SQL uses. Analytics, exports, split-test reports and ad spend share it.
 */
import { validation } from "../errors.ts";
import { DATE_MAX, DATE_MIN, parseDateOnly } from "./schemas.ts";

export interface WindowQuery {
  from?: string;
  to?: string;
  tz?: string;
}

/** A validated window: dates as sent (or defaulted) plus the bounds the SQL uses. */
export interface Window {
  from: string;
  to: string;
  tz: string;
  start: string;
  end: string;
}

const DAY_MS = 86_400_000;
const parseDate = parseDateOnly;
const FIRST_DAY_MS = parseDateOnly(DATE_MIN)!;

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The canonical IANA name, or undefined for an unknown zone. */
export function canonicalTimeZone(raw: string): string | undefined {
  if (!raw || raw.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(raw)) return undefined;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: raw }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** Today's calendar date in `tz`. */
function today(nowMs: number, tz: string): string {
  const parts = new Intl.DateTimeFormat("en-CA", { timeZone: tz, year: "numeric", month: "2-digit", day: "2-digit" }).formatToParts(new Date(nowMs));
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${get("year")}-${get("month")}-${get("day")}`;
}

/**
 * docs/api.md: `from` (ISO date, default N days ago), `to` (default today), `tz` (IANA,
 * default UTC) applied to day boundaries; unparsable dates, `to` before `from` and an
 * unknown tz are 422.
 */
export function resolveWindow(nowMs: number, input: WindowQuery, defaultDays: number): Window {
  const errors: Record<string, string[]> = {};
  const tz = input.tz === undefined || input.tz === "" ? "UTC" : canonicalTimeZone(input.tz);
  if (!tz) errors.tz = ["The tz must be an IANA time zone name, such as UTC or Europe/Berlin."];
  const zone = tz ?? "UTC";
  const toMs = input.to === undefined ? parseDate(today(nowMs, zone)) : parseDate(input.to);
  if (toMs === undefined) errors.to = [`The to must be a date in YYYY-MM-DD format from ${DATE_MIN} to ${DATE_MAX}.`];
  const fromMs = input.from === undefined ? (toMs === undefined ? undefined : Math.max(FIRST_DAY_MS, toMs - defaultDays * DAY_MS)) : parseDate(input.from);
  if (fromMs === undefined) errors.from = [`The from must be a date in YYYY-MM-DD format from ${DATE_MIN} to ${DATE_MAX}.`];
  if (fromMs !== undefined && toMs !== undefined && toMs < fromMs) errors.to = ["The to must be a date on or after from."];
  if (Object.keys(errors).length) throw validation(errors);
  return { from: dateOf(fromMs!), to: dateOf(toMs!), tz: zone, start: `${dateOf(fromMs!)} 00:00:00`, end: `${dateOf(toMs! + DAY_MS)} 00:00:00` };
}
