import { describe, expect, test } from "bun:test";
import { hoursFitLocalDays } from "./periods.ts";

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
