import { describe, expect, test } from "bun:test";
import { isoDuration, parseVtt, pickTrack } from "./vtt.ts";

describe("parseVtt", () => {
  test("reads cues with and without hours and identifiers, drops tags, settings and NOTE blocks", () => {
    // Windows line ends, as some captioning tools write them.
    const vtt = `WEBVTT - demo

NOTE a comment
with --> an arrow inside

intro
00:00.000 --> 00:02.500 align:start
<v Ana>Welcome to</v> the
<i>course</i> &amp; more

01:00:01.5 --> 01:00:03.000
Second cue

00:04.000 --> 00:05.000
`.replaceAll("\n", "\r\n");
    expect(parseVtt(vtt)).toEqual([
      { start: 0, end: 2.5, text: "Welcome to the course & more" },
      { start: 3601.5, end: 3603, text: "Second cue" },
    ]);
  });

  test("answers no cues for text that is not WebVTT", () => {
    expect(parseVtt("")).toEqual([]);
    expect(parseVtt("<html>not found</html>")).toEqual([]);
  });
});

describe("isoDuration", () => {
  test("writes hours, minutes and seconds, rounded, and nothing for an unknown length", () => {
    expect(isoDuration(8.2)).toBe("PT8S");
    expect(isoDuration(65)).toBe("PT1M5S");
    expect(isoDuration(3600)).toBe("PT1H");
    expect(isoDuration(3725.6)).toBe("PT1H2M6S");
    expect(isoDuration(0.4)).toBe("PT0S");
    expect(isoDuration(NaN)).toBeNull();
    expect(isoDuration(Infinity)).toBeNull();
    expect(isoDuration(0)).toBeNull();
  });
});

describe("pickTrack", () => {
  const tracks = [
    { src: "https://x.test/en.vtt", srclang: "en" },
    { src: "https://x.test/de.vtt", srclang: "de", default: true },
    { src: "https://x.test/fr.vtt", srclang: "fr" },
  ];
  test("the language asked for, else the default track, else the first", () => {
    expect(pickTrack({ captions_options: { tracks } }, "fr")?.srclang).toBe("fr");
    expect(pickTrack({ captions_options: { tracks } }, "es")?.srclang).toBe("de");
    expect(pickTrack({ captions_options: { tracks } }, null)?.srclang).toBe("de");
    expect(pickTrack({ captions_options: { tracks: [tracks[0]!, tracks[2]!], default_language: "fr" } })?.srclang).toBe("fr");
    expect(pickTrack({ captions_options: { tracks: [tracks[0]!, tracks[2]!] } })?.srclang).toBe("en");
    expect(pickTrack({})).toBeNull();
  });
});
