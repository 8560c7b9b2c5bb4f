import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { blocksOf, completing, FAMILIES, type Family, hoursFitLocalDays, msOf } from "./periods.ts";

describe("hoursFitLocalDays", () => {
  test("zones a whole number of hours from UTC, summer time included, fit; half-hour zones do not", () => {
    expect(hoursFitLocalDays("UTC", "2026-01-01 00:00:00", "2026-12-31 00:00:00")).toBe(true);
    expect(hoursFitLocalDays("America/New_York", "2026-03-01 00:00:00", "2026-11-30 00:00:00")).toBe(true);
    expect(hoursFitLocalDays("Asia/Kolkata", "2026-11-10 00:00:00", "2026-11-11 00:00:00")).toBe(false);
    expect(hoursFitLocalDays("Australia/Adelaide", "2026-11-10 00:00:00", "2026-11-11 00:00:00")).toBe(false);
  });

  test("a zone whose offset is half an hour off for part of the year fits only outside that part", () => {
    // Lord Howe Island: +11 in summer (October to April), +10:30 in winter.
    expect(hoursFitLocalDays("Australia/Lord_Howe", "2026-12-01 00:00:00", "2026-12-31 00:00:00")).toBe(true);
    expect(hoursFitLocalDays("Australia/Lord_Howe", "2026-12-01 00:00:00", "2027-06-30 00:00:00")).toBe(false);
  });
});

describe("blocks of sealed hours and days", () => {
  const [hours, days] = FAMILIES as [Family, Family];
  const ms = (text: string) => Date.parse(`${text}Z`);

  test("a block of hours starts on a multiple of its length inside its UTC day; 16 hours only from midnight", () => {
    expect(hours.startMs(ms("2026-11-10T13:30:00"), 4)).toBe(ms("2026-11-10T12:00:00"));
    expect(hours.startMs(ms("2026-11-10T15:59:59"), 16)).toBe(ms("2026-11-10T00:00:00"));
    expect(hours.startMs(ms("2026-11-10T16:00:00"), 16)).toBeUndefined();
    expect(hours.startMs(ms("2026-11-10T23:00:00"), 8)).toBe(ms("2026-11-10T16:00:00"));
    expect(hours.startMs(ms("2026-11-10T23:00:00"), 24)).toBe(ms("2026-11-10T00:00:00"));
  });

  test("a block of days starts on a multiple of its length in days since 1970", () => {
    const start = days.startMs(ms("2026-11-10T13:00:00"), 4)!;
    expect((start / 86_400_000) % 4).toBe(0);
    expect(ms("2026-11-10T13:00:00") - start).toBeLessThan(4 * 86_400_000);
  });

  test("a seal's hour completes the blocks that end with it, and no others", () => {
    const grains = (family: Family, from: string, to: string) => completing(family, ms(from), ms(to)).map((l) => l.grain);
    expect(grains(hours, "2026-11-10T10:00:00", "2026-11-10T11:00:00")).toEqual([]);
    expect(grains(hours, "2026-11-10T11:00:00", "2026-11-10T12:00:00")).toEqual(["2h", "4h"]);
    expect(grains(hours, "2026-11-10T15:00:00", "2026-11-10T16:00:00")).toEqual(["2h", "4h", "8h", "16h"]);
    expect(grains(hours, "2026-11-10T23:00:00", "2026-11-11T00:00:00")).toEqual(["2h", "4h", "8h", "day"]);
    // Days complete at midnight, each level on its own multiple of days since 1970.
    const index = ms("2026-11-10T00:00:00") / 86_400_000;
    expect(grains(days, "2026-11-09T23:00:00", "2026-11-10T00:00:00")).toEqual(days.levels.filter((l) => index % l.width === 0).map((l) => l.grain));
    expect(grains(days, "2026-11-10T10:00:00", "2026-11-10T11:00:00")).toEqual([]);
    // A backfill completes every level.
    for (const family of FAMILIES) expect(completing(family, 0, ms("2026-11-10T00:00:00"))).toEqual(family.levels);
  });
});

describe("blocksOf", () => {
  const HOUR = 3_600_000;
  const widthOf = (grain: string) =>
    grain === "hour" ? HOUR : grain === "day" ? 24 * HOUR : Number(grain.slice(0, -1)) * (grain.endsWith("h") ? HOUR : 24 * HOUR);

  test("tiles any span of whole hours with aligned blocks: at most two of each level of days below 256, four of hours (at each edge)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 * 24 }), fc.integer({ min: 0, max: 400 * 24 }), (a, length) => {
        const from = Date.parse("2025-06-01T00:00:00Z") + a * HOUR;
        const to = from + length * HOUR;
        const blocks = blocksOf(from, to)
          .map(([grain, start]) => ({ grain, start: msOf(start), end: msOf(start) + widthOf(grain) }))
          .sort((x, y) => x.start - y.start);
        let at = from;
        for (const b of blocks) {
          expect(b.start).toBe(at);
          // Aligned as the seal writes them (periods.ts FAMILIES), so each block is a row that exists.
          const family = FAMILIES.find((f) => f.levels.some((l) => l.grain === b.grain));
          const level = family?.levels.find((l) => l.grain === b.grain);
          if (family && level) expect(family.startMs(b.start, level.width)).toBe(b.start);
          else expect(b.start % HOUR).toBe(0);
          at = b.end;
        }
        expect(at).toBe(Math.max(from, to));
        const perGrain = new Map<string, number>();
        for (const b of blocks) perGrain.set(b.grain, (perGrain.get(b.grain) ?? 0) + 1);
        for (const [grain, n] of perGrain) if (grain !== "256d") expect(n).toBeLessThanOrEqual(grain === "hour" || grain.endsWith("h") ? 4 : 2);
      }),
    );
  });

  test("a month ending this evening is a handful of blocks", () => {
    const blocks = blocksOf(Date.parse("2026-10-23T00:00:00Z"), Date.parse("2026-11-21T21:00:00Z"));
    expect(blocks.map(([grain]) => grain).sort()).toEqual(["16d", "16h", "1d", "2d", "2d", "4h", "8d", "hour"].map((g) => (g === "1d" ? "day" : g)).sort());
  });
});
