import { describe, expect, test } from "bun:test";
import { defaultSettings, GROUP_NAMES, type Settings } from "../../../contract/settings.ts";
import { mergeDeep, mergeSettings } from "./merge.ts";

const chapters = (n: number, title = "Part") => Array.from({ length: n }, (_, i) => ({ time_s: i * 10, title: `${title} ${i}` }));

function live(): Settings {
  const settings = defaultSettings();
  settings.chapters_options = { enabled: true, chapters: chapters(5) };
  return settings;
}

describe("mergeSettings (docs/api.md Video settings rules 1-3)", () => {
  test("rule 1: merged recursively key by key; omitted keys are untouched", () => {
    const merged = mergeSettings(live(), { style_options: { main_color: "#e11d48" } });
    expect(merged.style_options).toEqual({ ...defaultSettings().style_options, main_color: "#e11d48" });
    expect(merged.playback_options).toEqual(defaultSettings().playback_options);
  });

  test("rule 2: lists merge by index; three items over five leave indexes 3 and 4 in place", () => {
    const merged = mergeSettings(live(), { chapters_options: { chapters: chapters(3, "New") } });
    expect((merged.chapters_options!.chapters as { title: string }[]).map((c) => c.title)).toEqual(["New 0", "New 1", "New 2", "Part 3", "Part 4"]);
    expect(merged.chapters_options!.enabled).toBe(true);
  });

  test("rule 3: unknown top-level keys, the five read-only groups and _version_label are dropped; nested keys are not filtered", () => {
    const before = live();
    const merged = mergeSettings(before, {
      no_such_group: { a: 1 },
      actions_options: { enabled: true },
      cloak_options: { enabled: true },
      headline_options: { enabled: true },
      pitch_time_options: { enabled: true },
      share_options: { enabled: true },
      _version_label: "x",
      style_options: { made_up_key: 1 },
    });
    expect(Object.keys(merged).sort()).toEqual(Object.keys(before).sort());
    for (const group of ["actions_options", "cloak_options", "headline_options", "pitch_time_options", "share_options"] as const) {
      expect([group, merged[group]]).toEqual([group, before[group]]);
    }
    expect(merged.style_options).toHaveProperty("made_up_key", 1);
  });

  test("a group the stored row lacks is completed with its defaults before the merge", () => {
    const stored: Partial<Settings> = live();
    delete stored.quiz_options;
    expect(mergeSettings(stored, { quiz_options: { enabled: true } }).quiz_options).toEqual({ ...defaultSettings().quiz_options, enabled: true });
  });

  test("neither input is changed, and a __proto__ key cannot swap a prototype", () => {
    const before = live();
    const snapshot = structuredClone(before);
    const payload = JSON.parse('{"style_options": {"__proto__": {"polluted": true}, "main_color": "#000000"}}');
    const merged = mergeSettings(before, payload);
    expect(before).toEqual(snapshot);
    expect(Object.getPrototypeOf(merged.style_options)).toBe(Object.prototype);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  test("mergeDeep: a scalar or a list over an object replaces it; a list item past the base is copied", () => {
    expect(mergeDeep({ a: { b: 1 } }, { a: 2 })).toEqual({ a: 2 });
    expect(mergeDeep({ a: { b: 1 } }, { a: [1] })).toEqual({ a: [1] });
    const item = { x: 1 };
    const out = mergeDeep([], [item]) as unknown[];
    expect(out).toEqual([{ x: 1 }]);
    expect(out[0]).not.toBe(item);
  });
});

describe("mergeSettings for the operator API", () => {
  test("every group may be set, and a list replaces the stored one whole (a row can be removed)", () => {
    const merged = mergeSettings(
      live(),
      { chapters_options: { chapters: chapters(2, "New") }, cloak_options: { enabled: true } },
      { writable: GROUP_NAMES, wholeLists: true },
    );
    expect((merged.chapters_options!.chapters as { title: string }[]).map((c) => c.title)).toEqual(["New 0", "New 1"]);
    expect(merged.cloak_options).toEqual({ enabled: true });
  });
});
