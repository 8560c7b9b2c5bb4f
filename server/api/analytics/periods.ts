/**
 * What the sealed periods of the rollups (rollups.ts, group-rollups.ts) share: how a seal
 * stamps its rows, how a read takes each period's latest generation, and which periods a
 * window takes whole.
 */

/** A UTC instant as ClickHouse's DateTime text, and back. */
export const at = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");
export const msOf = (text: string) => Date.parse(`${text.replace(" ", "T")}Z`);

/** When a seal's rows were read: its run's start, so of two runs sealing one period at once the later-started wins. */
export const RUN_STARTED = "toDateTime64({run:String}, 3, 'UTC')";

/** The tables of sealed periods, and what a seal writes one generation of in each. */
export const SEALED_TABLES = {
  analytics_rollups: "video_id, grain, period",
  analytics_group_rollups: "video_id, dimension, grain, period",
} as const;
export type SealedTable = keyof typeof SEALED_TABLES;

/** The latest generation of each period that `where` selects in `table`: a period sealed twice counts once. */
export const latest = (where: string, table: SealedTable = "analytics_rollups") => {
  const keys = SEALED_TABLES[table];
  return `(${keys}, generation) IN (
      SELECT ${keys}, argMax(generation, sealed_at) FROM ${table} WHERE ${where} GROUP BY ${keys})`;
};

export const sealedParam = (sealedUntilMs: number) => ({ sealed: at(sealedUntilMs) });

/**
 * The sealed periods a window [start, end) takes whole: the hours from the first hour
 * boundary at or after its start to the last at or before its end, below the mark
 * `{sealed}` (read as SESSION_WHERE reads the window, so both agree on every zone's
 * midnight), as whole UTC days where they cover one and hours at the edges. Rollups are
 * cut in UTC, so the bounds are taken there (toStartOfHour and toStartOfDay cut in the
 * time zone of their argument). An empty span
 * (nothing sealed yet, a window inside one hour) leaves every session to the read.
 */
export const SPAN_FROM = "toStartOfHour(toTimeZone(toDateTime({start:String}, {tz:String}), 'UTC') + 3599)";
export const SPAN_TO = "least(toStartOfHour(toTimeZone(toDateTime({end:String}, {tz:String}), 'UTC')), toDateTime({sealed:String}, 'UTC'))";
const DAYS_FROM = `toStartOfDay(${SPAN_FROM} + 86399)`;
const DAYS_TO = `toStartOfDay(${SPAN_TO})`;
export const PERIODS = `workspace_id = {ws:UInt64} AND video_id IN {videos:Array(UInt64)} AND (
      (grain = 'day' AND period >= ${DAYS_FROM} AND period < ${DAYS_TO})
      OR (grain = 'hour' AND period >= ${SPAN_FROM} AND period < ${SPAN_TO} AND NOT (period >= ${DAYS_FROM} AND period < ${DAYS_TO})))`;

/** The hours of the span alone (no day rows): what a series per local day reads outside UTC. */
export const HOUR_PERIODS = `workspace_id = {ws:UInt64} AND video_id IN {videos:Array(UInt64)}
      AND grain = 'hour' AND period >= ${SPAN_FROM} AND period < ${SPAN_TO}`;

/** The window's bounds, as queries.ts WHERE reads a sale's time. */
export const [SALES_START, SALES_END] = ["start", "end"].map((b) => `toDateTime64({${b}:String}, 3, {tz:String})`) as [string, string];

/** A sale time is inside the window. */
export const inSalesWindow = (t: string) => `${t} >= ${SALES_START} AND ${t} < ${SALES_END}`;

const HOUR_MS = 3_600_000;

/**
 * Whether every local midnight of the window (`start`, `end`: local "YYYY-MM-DD hh:mm:ss"
 * of `tz`) is a UTC hour boundary, so each sealed hour falls in one local day: false in
 * zones such as Asia/Kolkata (+05:30) or Australia/Lord_Howe in winter (+10:30).
 */
export function hoursFitLocalDays(tz: string, start: string, end: string): boolean {
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone: tz,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
  });
  const offsetMinutes = (ms: number) => {
    const p = Object.fromEntries(format.formatToParts(new Date(ms)).map((x) => [x.type, Number(x.value)]));
    return (Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!) - ms) / 60_000;
  };
  // Every twelve hours from a day before to a day after: offsets change at most twice a year, and never for less than a day.
  for (let ms = msOf(start) - 24 * HOUR_MS; ms <= msOf(end) + 24 * HOUR_MS; ms += 12 * HOUR_MS) if (offsetMinutes(ms) % 60 !== 0) return false;
  return true;
}

/** The window's start, in UTC. */
const START_UTC = "toTimeZone(toDateTime({start:String}, {tz:String}), 'UTC')";

/**
 * The earliest sale of a session the read takes from analytics_sessions rather than sealed
 * periods: those sessions start after the sealed span, unless the window has an edge
 * before it (a window starting inside an hour) or nothing sealed, and a sale is made after
 * its session started (an hour of slack for clocks).
 */
export const UNSEALED_SALES_FROM = `if(${SPAN_FROM} > ${START_UTC} OR ${SPAN_TO} <= ${SPAN_FROM}, ${START_UTC}, ${SPAN_TO} - 3600)`;

/** Rows whose time `column` falls outside the sealed periods the window takes whole (the window's own bounds are the caller's). */
export const outsideSealed = (column: string) => `NOT (${column} >= ${SPAN_FROM} AND ${column} < ${SPAN_TO})`;
