import { describe, expect, test } from "bun:test";
import type { PlayerConfig } from "./types.ts";
import { pickRendition } from "./orientation.ts";

const land = { hls: "l.m3u8", poster: null, w: 1920, h: 1080 };
const port = { hls: "p.m3u8", poster: null, w: 1080, h: 1920 };
const cfg = (default_orientation: "landscape" | "portrait", landscape: typeof land | null, portrait: typeof port | null) =>
  ({ video: { default_orientation, landscape, portrait } }) as unknown as PlayerConfig;
const desktop = { w: 1440, h: 900 };
const phone = { w: 390, h: 844 };

describe("pickRendition", () => {
  test("default_orientation decides on a desktop; a phone gets the cut matching how it is held", () => {
    expect(pickRendition(cfg("landscape", land, port), desktop).orientation).toBe("landscape");
    expect(pickRendition(cfg("portrait", land, port), desktop)).toEqual({ orientation: "portrait", rendition: port });
    expect(pickRendition(cfg("landscape", land, port), phone)).toEqual({ orientation: "portrait", rendition: port });
    expect(pickRendition(cfg("portrait", land, port), { w: phone.h, h: phone.w }).orientation).toBe("landscape");
  });

  test("only one orientation uploaded: that one, whatever the default and viewport", () => {
    expect(pickRendition(cfg("landscape", null, port), desktop)).toEqual({ orientation: "portrait", rendition: port });
    expect(pickRendition(cfg("portrait", land, null), phone)).toEqual({ orientation: "landscape", rendition: land });
    expect(pickRendition(cfg("portrait", null, null), phone)).toEqual({ orientation: "landscape", rendition: null });
  });
});
