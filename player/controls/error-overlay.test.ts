import { describe, expect, test } from "bun:test";
import type { PlayerError } from "../errors.ts";
import { fakePlayer, useDom } from "../../test/helpers/player-dom.ts";
import { errorOverlay } from "./error-overlay.ts";

useDom();

const overlay = () => document.querySelectorAll<HTMLElement>(".fl-err");
const fatal = (type: PlayerError["type"], details: string): PlayerError => ({ type, details, fatal: true });

describe("error overlay", () => {
  test("a fatal error shows one alert over the player, with a message for its kind", () => {
    const p = fakePlayer();
    errorOverlay(p);
    p.emit("error", { type: "network", details: "fragLoadError", fatal: false });
    expect(overlay().length).toBe(0);
    const cases: [PlayerError, string][] = [
      [fatal("network", "manifestLoadError"), "The video could not load. Check your connection and try again."],
      [fatal("media", "mediaDecodeError"), "The video could not play in this browser."],
      [fatal("other", "noStream"), "This video is not ready yet."],
      [fatal("mux", "fragParsingError"), "Something went wrong while playing this video."],
    ];
    for (const [error, text] of cases) {
      p.emit("error", error);
      expect(overlay().length).toBe(1);
      const box = overlay()[0];
      expect(box.parentElement).toBe(p.root);
      expect(box.getAttribute("role")).toBe("alert");
      expect(box.querySelector("p")!.textContent).toBe(text);
      expect(box.querySelector("button")!.textContent).toBe("Retry");
    }
  });

  test("Retry removes it and asks for the source again; a new source clears it", () => {
    const p = fakePlayer();
    errorOverlay(p);
    p.emit("error", fatal("network", "manifestLoadError"));
    overlay()[0].querySelector("button")!.click();
    expect(overlay().length).toBe(0);
    expect(p.events("retry").length).toBe(1);
    p.emit("error", fatal("network", "manifestLoadError"));
    p.emit("source", p.source);
    expect(overlay().length).toBe(0);
    expect(p.events("retry").length).toBe(1);
  });

  test("after teardown errors show nothing", () => {
    const p = fakePlayer();
    errorOverlay(p)();
    p.emit("error", fatal("media", "mediaDecodeError"));
    expect(overlay().length).toBe(0);
  });
});
