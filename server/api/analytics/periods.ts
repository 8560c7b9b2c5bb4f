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

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Sealed blocks longer than an hour: aligned runs of 2, 4, 8 and 16 hours inside a UTC day
 * and the day itself, merged from its hours, and of 2 to 256 days (aligned on days since
 * 1970), merged from their days. A window takes the largest blocks inside it (blocksOf), so
 * a read merges a dozen rows per video (per value, for a breakdown) rather than one per day
 * and hour: a month ending this evening is about eight, a year a dozen.
 */
export interface Family {
  /** The grain of the rows its blocks merge, and its length in ms. */
  child: "hour" | "day";
  unitMs: number;
  /** Its levels: a block's grain and length in units of the child. */
  levels: { grain: string; width: number }[];
  /** The start of the block of `width` units (SQL) that a child's period `p` is in. */
  start: (p: string, width: string) => string;
  /** Whether that block exists: blocks of hours stay inside their day (16 hours only from midnight). */
  valid: (p: string, width: string) => string;
  /** The start in ms of the block of `width` units that a UTC instant is in, if one exists. */
  startMs: (ms: number, width: number) => number | undefined;
}

export const FAMILIES: Family[] = [
  {
    child: "hour",
    unitMs: HOUR_MS,
    levels: [...[2, 4, 8, 16].map((width) => ({ grain: `${width}h`, width })), { grain: "day", width: 24 }],
    start: (p, w) => `toStartOfDay(${p}) + intDiv(toHour(${p}), ${w}) * ${w} * 3600`,
    valid: (p, w) => `intDiv(toHour(${p}), ${w}) * ${w} + ${w} <= 24`,
    startMs: (ms, width) => {
      const day = Math.floor(ms / DAY_MS) * DAY_MS;
      const start = day + Math.floor((ms - day) / (width * HOUR_MS)) * width * HOUR_MS;
      return start + width * HOUR_MS <= day + DAY_MS ? start : undefined;
    },
  },
  {
    child: "day",
    unitMs: DAY_MS,
    levels: [2, 4, 8, 16, 32, 64, 128, 256].map((width) => ({ grain: `${width}d`, width })),
    start: (p, w) => `toDateTime(intDiv(toUInt32(toDate(${p})), ${w}) * ${w} * 86400, 'UTC')`,
    valid: () => "1",
    startMs: (ms, width) => Math.floor(ms / (width * DAY_MS)) * width * DAY_MS,
  },
];

/** The levels of `family` with a block that ends after `done` and by `now` (in ms): most complete nothing in a seal's hour. */
export function completing(family: Family, done: number, now: number): Family["levels"] {
  return family.levels.filter(({ width }) => {
    const ms = width * family.unitMs;
    // Two blocks and two days hold a whole one (a backfill): no need to look.
    if (now - done >= 2 * ms + 2 * DAY_MS) return true;
    for (let t = done; t < now; t += family.unitMs) {
      const start = family.startMs(t, width);
      if (start !== undefined && start + ms > done && start + ms <= now) return true;
    }
    return false;
  });
}

/**
 * The blocks of `levels` of `family` as rows to merge: the latest rows of the child grain of
 * `table` that `children` selects, each once per level with the block it falls in (`level`,
 * `block`, `width`), of the blocks that exist and that `blocks` selects.
 */
export function familyRows(table: SealedTable, family: Family, levels: Family["levels"], children: string, blocks: string): string {
  const rows = `grain = '${family.child}' AND ${children}`;
  return `SELECT * FROM (
    SELECT *, lv.1 AS level, ${family.start("period", "lv.2")} AS block, lv.2 AS width
    FROM ${table} ARRAY JOIN [${levels.map((l) => `('${l.grain}', ${l.width})`).join(", ")}] AS lv
    WHERE ${rows} AND ${latest(rows, table)}
  )
  WHERE ${family.valid("period", "width")} AND ${blocks}`;
}

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
const END_HOUR = "toStartOfHour(toTimeZone(toDateTime({end:String}, {tz:String}), 'UTC'))";
export const SPAN_TO = `least(${END_HOUR}, toDateTime({sealed:String}, 'UTC'))`;
const DAYS_FROM = `toStartOfDay(${SPAN_FROM} + 86399)`;
const DAYS_TO = `toStartOfDay(${SPAN_TO})`;
const SCOPE = "workspace_id = {ws:UInt64} AND video_id IN {videos:Array(UInt64)}";
const IN_DAYS = `period >= ${DAYS_FROM} AND period < ${DAYS_TO}`;

/** The span as rows of a day and of an hour: what a series per day reads (a block would cross its days). */
export const DAY_PERIODS = `${SCOPE} AND (
      (grain = 'day' AND ${IN_DAYS})
      OR (grain = 'hour' AND period >= ${SPAN_FROM} AND period < ${SPAN_TO} AND NOT (${IN_DAYS})))`;

/** A sealed block a read takes: its grain and start (UTC, as `at` writes it). */
export type Block = [grain: string, start: string];

/**
 * Blocks of 2^k units from `lo` to `hi` (unit indices), the largest that fit: at most two of
 * each level below `top`, then every one of level `top` (a segment tree's walk up).
 */
function dyadic(lo: number, hi: number, top: number): [level: number, index: number][] {
  const out: [number, number][] = [];
  let [l, r] = [lo, hi];
  for (let k = 0; k < top && l < r; k++, l /= 2, r /= 2) {
    if (l % 2 === 1) out.push([k, l++]);
    if (r % 2 === 1) out.push([k, --r]);
  }
  for (let i = l; i < r; i++) out.push([top, i]);
  return out;
}

const grainOf = (family: "h" | "d", level: number) => (level === 0 ? (family === "h" ? "hour" : "day") : `${2 ** level}${family}`);

/**
 * The sealed blocks that tile the span [fromMs, toMs) (UTC hour boundaries): the whole
 * days in it as blocks of days, the hours at its edges as blocks of hours inside their day
 * (16 hours only from midnight: a block of 16 from 16:00 would cross it).
 */
export function blocksOf(fromMs: number, toMs: number): Block[] {
  if (toMs <= fromMs) return [];
  const dayFrom = Math.ceil(fromMs / DAY_MS);
  const dayTo = Math.floor(toMs / DAY_MS);
  const blocks: Block[] = [];
  const hours = (a: number, b: number) => {
    if (b <= a) return;
    const day = Math.floor(a / DAY_MS) * DAY_MS;
    for (const [k, i] of dyadic((a - day) / HOUR_MS, (b - day) / HOUR_MS, 4)) blocks.push([grainOf("h", k), at(day + i * 2 ** k * HOUR_MS)]);
  };
  if (dayFrom < dayTo) {
    for (const [k, i] of dyadic(dayFrom, dayTo, 8)) blocks.push([grainOf("d", k), at(i * 2 ** k * DAY_MS)]);
    hours(fromMs, dayFrom * DAY_MS);
    hours(dayTo * DAY_MS, toMs);
  } else {
    hours(fromMs, Math.min(toMs, dayFrom * DAY_MS));
    hours(dayFrom * DAY_MS, toMs);
  }
  return blocks;
}

/** The sealed span of a read: the mark below which periods are sealed (0: none), and the blocks of its window below it. */
export interface Sealed {
  until: number;
  blocks: Block[];
}
export const NOTHING_SEALED: Sealed = { until: 0, blocks: [] };

/** A read's parameters of its sealed span: the mark (`{sealed}`) and the blocks PERIODS takes. */
export const sealedParam = (s: Sealed) => ({ sealed: at(s.until), block_grains: s.blocks.map((b) => b[0]), block_starts: s.blocks.map((b) => b[1]) });

/**
 * The sealed blocks a read takes (`sealedParam`'s, from blocksOf), in its scope. A list of
 * pairs rather than a condition per level: the primary key finds them directly, and
 * ClickHouse plans a condition of a dozen levels at every read for longer than it takes to
 * merge the rows (about 5 ms a level on the seller rollups' granules of 32 rows).
 */
export const PERIODS = `${SCOPE} AND (grain, period) IN arrayZip({block_grains:Array(String)}, {block_starts:Array(DateTime('UTC'))})`;

/** The UTC instants (seconds) where a window's sealed span may start and end: its first and last hour boundaries. */
export const SPAN_BOUNDS_SQL = `SELECT toUnixTimestamp(${SPAN_FROM}) AS from_s, toUnixTimestamp(${END_HOUR}) AS end_s`;

/** The hours of the span alone (no day rows): what a series per local day reads outside UTC. */
export const HOUR_PERIODS = `${SCOPE} AND grain = 'hour' AND period >= ${SPAN_FROM} AND period < ${SPAN_TO}`;

/** The window's bounds, as queries.ts WHERE reads a sale's time. */
export const [SALES_START, SALES_END] = ["start", "end"].map((b) => `toDateTime64({${b}:String}, 3, {tz:String})`) as [string, string];

/** A sale time is inside the window. */
export const inSalesWindow = (t: string) => `${t} >= ${SALES_START} AND ${t} < ${SALES_END}`;

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
