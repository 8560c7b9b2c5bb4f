import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FEATURE_FLAGS, FEATURE_NAMES, defineOf, featureFlags, flagDefines, flagTableMarkdown } from "./flags.ts";

const ROOT = join(import.meta.dir, "..");
const off = Object.fromEntries(FEATURE_NAMES.map((n) => [n, false]));

describe("featureFlags", () => {
  test("every feature is off for settings that do not enable it", () => {
    expect(featureFlags({})).toEqual(off as never);
    expect(featureFlags({ chapters_options: { enabled: false, chapters: [{ time_s: 0, title: "a" }] }, autoplay_options: { enabled: "yes" } })).toEqual(
      off as never,
    );
  });

  test("a feature with content needs its list non-empty; the others only `enabled: true`", () => {
    expect(featureFlags({ chapters_options: { enabled: true } }).chapters).toBe(false);
    expect(featureFlags({ chapters_options: { enabled: true, chapters: [] } }).chapters).toBe(false);
    expect(featureFlags({ chapters_options: { enabled: true, chapters: [{ time_s: 1, title: "a" }] } }).chapters).toBe(true);
    expect(featureFlags({ cta_cards_options: { enabled: true, cards: [{ time_s: 1 }] } }).cta).toBe(true);
    expect(featureFlags({ playlist_options: { enabled: true, items: [{ video_code: "x" }] } }).playlist).toBe(true);
    expect(featureFlags({ playlist_options: { enabled: true, items: "x" } }).playlist).toBe(false);
    expect(featureFlags({ captions_options: { enabled: true } }).captions).toBe(true);
    expect(featureFlags({ autoplay_options: { enabled: true } })).toEqual({ ...off, autoplay: true } as never);
  });

  test("a group without an `enabled` switch (timed events) is on when its list is non-empty", () => {
    expect(featureFlags({ timed_events_options: { events: [] } }).timed_events).toBe(false);
    expect(featureFlags({ timed_events_options: { events: [{ time_s: 3, selector: "#buy" }] } })).toEqual({ ...off, timed_events: true } as never);
    expect(featureFlags({ share_options: { enabled: true, networks: [] } }).share).toBe(false);
    expect(featureFlags({ share_options: { enabled: true, networks: ["x"] }, lead_form_options: { enabled: true } })).toEqual({
      ...off,
      share: true,
      lead_form: true,
    } as never);
  });
});

describe("courses and interactive video", () => {
  test("course mode is the playlist with playback_mode course; quiz and notes need entries; resume on any device only its switch", () => {
    const items = [{ video_code: "x" }];
    expect(featureFlags({ playlist_options: { enabled: true, items, playback_mode: "linear" } })).toEqual({ ...off, playlist: true } as never);
    expect(featureFlags({ playlist_options: { enabled: true, items, playback_mode: "course" } })).toEqual({ ...off, playlist: true, course: true } as never);
    expect(featureFlags({ playlist_options: { enabled: true, items: [], playback_mode: "course" } }).course).toBe(false);
    expect(featureFlags({ quiz_options: { enabled: true, questions: [] } }).quiz).toBe(false);
    expect(featureFlags({ quiz_options: { enabled: true, questions: [{ id: "q" }] } }).quiz).toBe(true);
    expect(featureFlags({ notes_options: { enabled: true, notes: [{ time_s: 1, text: "a" }] } }).notes).toBe(true);
    expect(featureFlags({ cross_device_resume_options: { enabled: true } })).toEqual({ ...off, resume_any_device: true } as never);
  });
});

describe("a rule with its own switches and another group's field (branding)", () => {
  test("show_logo or watermark turns it on, or a non-empty style_options.logo_url; enabled alone does not", () => {
    expect(featureFlags({ branding_options: { show_logo: true } }).branding).toBe(true);
    expect(featureFlags({ branding_options: { watermark: true } }).branding).toBe(true);
    expect(featureFlags({ branding_options: { enabled: true, show_logo: false } }).branding).toBe(false);
    expect(featureFlags({ style_options: { logo_url: "https://example.com/logo.png" } }).branding).toBe(true);
    expect(featureFlags({ style_options: { logo_url: "" } }).branding).toBe(false);
    expect(featureFlags({ style_options: { logo_url: null } }).branding).toBe(false);
  });
});

describe("switches that are texts (seo) and a plain group (transcript)", () => {
  test("a non-empty seo title or description, or transcript_enabled, turns seo on; blanks and defaults do not", () => {
    expect(featureFlags({ seo_options: { title: "Launch video" } }).seo).toBe(true);
    expect(featureFlags({ seo_options: { description: "How it works" } }).seo).toBe(true);
    expect(featureFlags({ seo_options: { transcript_enabled: true } }).seo).toBe(true);
    expect(featureFlags({ seo_options: { title: "  ", description: "", transcript_enabled: false } }).seo).toBe(false);
    expect(featureFlags({ seo_options: { title: null, description: null, transcript_enabled: false } }).seo).toBe(false);
  });

  test("transcript_options.enabled turns the transcript on", () => {
    expect(featureFlags({ transcript_options: { enabled: true, language: "en" } }).transcript).toBe(true);
    expect(featureFlags({ transcript_options: { enabled: false, language: "en" } }).transcript).toBe(false);
  });
});

describe("flagDefines", () => {
  test("defines every flag as a literal, a missing one false", () => {
    const defines = flagDefines({ chapters: true });
    expect(Object.keys(defines).sort()).toEqual(FEATURE_NAMES.map(defineOf).sort());
    expect(defines["__FL_FEATURES__.chapters"]).toBe("true");
    expect(defines["__FL_FEATURES__.autoplay"]).toBe("false");
  });
});

describe("the flag table is the one rule", () => {
  test("player/README.md carries the generated table", () => {
    const readme = readFileSync(join(ROOT, "player", "README.md"), "utf8");
    expect(readme).toContain(flagTableMarkdown());
    for (const name of FEATURE_NAMES) expect(flagTableMarkdown()).toContain(FEATURE_FLAGS[name].group);
  });

  test("player/entry.ts guards one feature behind each row's define, and reads no other flag", () => {
    const entry = readFileSync(join(ROOT, "player", "entry.ts"), "utf8");
    const used = [...entry.matchAll(/__FL_FEATURES__\.(\w+)/g)].map((m) => m[1]);
    expect(new Set(used)).toEqual(new Set(FEATURE_NAMES));
    expect(used).toHaveLength(FEATURE_NAMES.length);
  });
});
