import { describe, expect, test } from "bun:test";
import { defaultSettings } from "../../../contract/settings.ts";
import { timedEventsOf } from "./timed-events.ts";

describe("timedEventsOf", () => {
  test("none by default", () => expect(timedEventsOf(defaultSettings())).toEqual([]));

  test("each entry completed with the player's defaults", () => {
    const settings = defaultSettings();
    settings.timed_events_options = {
      events: [
        { time_s: 12, selector: "#buy" },
        { time_s: 30, selector: null, action: "hide", name: "late", persist: false },
      ],
    };
    expect(timedEventsOf(settings)).toEqual([
      { time_s: 12, selector: "#buy", action: "show", name: null, persist: true },
      { time_s: 30, selector: null, action: "hide", name: "late", persist: false },
    ]);
  });
});
