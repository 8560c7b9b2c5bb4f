import { expect, test } from "bun:test";
import { factsFromRows, type TimelineRow } from "./events.ts";

const row = (session_code: string, event_type: string, video_time = 0, watch_seconds = 0, properties: Record<string, string> = {}): TimelineRow => ({
  session_code,
  event_type,
  event: "",
  video_time,
  watch_seconds,
  properties,
  at_ms: 0,
});

test("a timeline's rows give each session's watch time, furthest point, duration, plays and leads", () => {
  const facts = factsFromRows([
    row("a", "load"),
    row("a", "play"),
    row("a", "watched", 0, 5, { duration_s: "20" }),
    row("a", "watched", 10, 10, { duration_s: "20" }),
    row("a", "lead_form_submitted", 12),
    row("b", "unmute"),
    row("b", "watched", 0, 4),
  ]);
  expect(facts).toEqual([
    { session_code: "a", watch_s: 15, furthest_s: 20, duration_s: 20, plays: 1, leads: 1 },
    { session_code: "b", watch_s: 4, furthest_s: 4, duration_s: 0, plays: 1, leads: 0 },
  ]);
});
