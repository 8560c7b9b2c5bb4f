/**
 * The player's size budget (player/size-budget.json), on bundles built with
 * the compiler's exact esbuild options (CONTRACT: core + per-video entry):
 * what a page downloads before play intent, and with the hls.js chunk.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import budget from "../../player/size-budget.json";
import type { PlayerConfig } from "../../player/types.ts";
import { defaultSettings } from "../../contract/settings.ts";
import { buildCore, buildEntry, tempDir, type PlayerBuild } from "../helpers/browser.ts";
import { FEATURE_NAMES, type FeatureName } from "../../compiler/flags.ts";

const gzip = (text: string | Uint8Array<ArrayBuffer>) => Bun.gzipSync(typeof text === "string" ? new TextEncoder().encode(text) : text).length;

let dir: string;
let core: PlayerBuild;
const read = (f: string) => readFileSync(join(dir, f), "utf8");

/** Chunks a file imports statically (fetched with it) and dynamically (fetched later). */
function imports(code: string) {
  const stat = [...code.matchAll(/(?:from|import)\s*"\.\/(chunk-[\w-]+\.js)"/g)].map((m) => m[1]);
  const dyn = [...code.matchAll(/import\(\s*"\.\/(chunk-[\w-]+\.js)"\s*\)/g)].map((m) => m[1]);
  return { stat, dyn };
}

/** Every file fetched eagerly with `file`, following static imports. */
function eager(file: string, seen = new Set<string>()): Set<string> {
  seen.add(file);
  for (const c of imports(read(file)).stat) if (!seen.has(c)) eager(c, seen);
  return seen;
}

function config(): PlayerConfig {
  const settings = defaultSettings() as PlayerConfig["settings"];
  settings.chapters_options = { enabled: true, chapters: Array.from({ length: 8 }, (_, i) => ({ time_s: i * 60, title: `Chapter ${i + 1}` })) };
  settings.cta_cards_options = {
    enabled: true,
    cards: [{ time_s: 30, duration_s: 20, text: "Get the offer", button_text: "Buy", url: "https://example.com/buy" }],
  };
  settings.captions_options = { enabled: true, tracks: [{ src: "https://cdn.example.com/en.vtt", srclang: "en", label: "English", default: true }] };
  settings.autoplay_options = { enabled: true, muted: true, unmute_prompt: true };
  const rendition = {
    hls: "https://cdn.example.com/m/abc/landscape/index.m3u8",
    poster: "https://cdn.example.com/m/abc/landscape/poster.jpg",
    w: 1920,
    h: 1080,
  };
  return {
    video: {
      id: 1,
      code: "7d4f0a52-3c1b-4f7e-9a55-0c2f1b9e8d11",
      title: "Sales video",
      workspace_code: "ws_1234567890",
      default_orientation: "landscape",
      plain_mode: false,
      landscape: rendition,
      portrait: null,
    },
    settings,
    playlist: {
      playback_mode: "course",
      auto_advance: true,
      auto_advance_delay_ms: 3000,
      loop: false,
      lesson_navigation: "both",
      playlist_chrome: "rail",
      items: Array.from({ length: 5 }, (_, i) => ({
        video_code: `code-${i}`,
        title: `Lesson ${i + 1}`,
        lesson_label: `Lesson ${i + 1}`,
        duration_s: 300,
        thumb_url: null,
        hls: rendition.hls,
        poster: rendition.poster,
      })),
    },
    events_url: "https://events.example.com",
  };
}

const ALL = Object.fromEntries(FEATURE_NAMES.map((name) => [name, true]));
/** The sales player's features (issue 15): their budget is their own. */
const SALES = [
  "timed_events",
  "headline",
  "pitch",
  "cloak",
  "share",
  "actions",
  "end_screen",
  "thumbnail",
  "lead_form",
  "watch_gate",
  "pixels",
  "sticky",
  "exit_intent",
  "countdown",
  "user_events",
] as const satisfies readonly FeatureName[];

/** A playlist in course mode with its interactive features (issue 18). */
const COURSE = ["playlist", "course", "quiz", "notes", "resume_any_device"] as const satisfies readonly FeatureName[];

beforeAll(async () => {
  dir = tempDir("fl-size-");
  core = await buildCore(dir);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("player size budget", () => {
  test("entry + core before play intent (every feature off; the sales features on; a course), and with the hls.js chunk, stay within player/size-budget.json", async () => {
    const coreUrl = `https://cdn.example.com/cdn/p/${core.core}`;
    const eagerFiles = eager(core.core);
    const coreBytes = [...eagerFiles].reduce((n, f) => n + gzip(read(f)), 0);
    const before = gzip(await buildEntry(config(), coreUrl, {})) + coreBytes;
    const sales = gzip(await buildEntry(config(), coreUrl, Object.fromEntries(SALES.map((name) => [name, true])))) + coreBytes;
    const all = gzip(await buildEntry(config(), coreUrl, ALL)) + coreBytes;
    const course = gzip(await buildEntry(config(), coreUrl, Object.fromEntries(COURSE.map((name) => [name, true])))) + coreBytes;

    // hls.js is its own chunk, reached only through a dynamic import from the core.
    const lazy = [...eagerFiles].flatMap((f) => imports(read(f)).dyn);
    expect(lazy.length).toBe(1);
    const hls = read(lazy[0]);
    const isHls = (code: string) => code.includes("hlsMediaAttached");
    expect(isHls(hls)).toBe(true);
    expect([...eagerFiles].some((f) => isHls(read(f)))).toBe(false);
    const withHls = all + gzip(hls);

    console.log(
      `player gzip before play: features off ${before} B (budget ${budget.before_play_gzip}), sales features on ${sales} B (budget ${budget.sales_before_play_gzip}), ` +
        `a course with quizzes, notes and resume on any device ${course} B (budget ${budget.course_before_play_gzip}); ` +
        `every feature with hls.js ${withHls} B (budget ${budget.with_hls_gzip})`,
    );
    expect(before).toBeLessThanOrEqual(budget.before_play_gzip);
    expect(sales).toBeLessThanOrEqual(budget.sales_before_play_gzip);
    expect(course).toBeLessThanOrEqual(budget.course_before_play_gzip);
    expect(withHls).toBeLessThanOrEqual(budget.with_hls_gzip);
  });

  test("a video without a feature ships none of its code", async () => {
    const cfg = config();
    const bare = await buildEntry(cfg, "https://cdn.example.com/cdn/p/core.js", {});
    const full = await buildEntry(cfg, "https://cdn.example.com/cdn/p/core.js", ALL);
    for (const cls of [
      "fl-mark",
      "fl-cta",
      "fl-cc",
      "fl-list",
      "fl-unmute",
      "fl-headline",
      "fl-cloaked",
      "fl-share",
      "fl-acta",
      "fl-end",
      "fl-thumb",
      "fl-lead",
      "fl-sticky",
      "fl-exit",
      "fl-countdown",
      "fl-prepitch",
      "fl_reveal_",
      "VideoProgress",
      "lead-status",
      "fl-quiz",
      "fl-notes",
      "course-progress",
      "resume-position",
      "hlsFragLoaded",
    ]) {
      expect(full).toContain(cls);
      expect(bare).not.toContain(cls);
    }
    // A public video ships none of the protection code (player/protection.ts); a protected one does.
    const guarded = await buildEntry(cfg, "https://cdn.example.com/cdn/p/core.js", {}, { allowed_origins: ["shop.example"], signed: true });
    for (const text of ["can't be played on this site", "/v1/playback/"]) {
      expect(guarded).toContain(text);
      expect(bare).not.toContain(text);
    }
    // The entry stays a loader around the baked config.
    expect(gzip(bare)).toBeLessThan(gzip(JSON.stringify(cfg)) + 400);
  });
});
