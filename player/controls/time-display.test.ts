import { describe, expect, test } from "bun:test";
import { fakePlayer, useDom } from "../../test/helpers/player-dom.ts";
import { timeDisplay } from "./time-display.ts";

useDom();

describe("time display", () => {
  test("elapsed time, with the duration once it is known and finite", () => {
    const p = fakePlayer();
    timeDisplay(p);
    const time = p.controls!.querySelector(".fl-time")!;
    expect(time.textContent).toBe("0:00");
    p.media({ duration: 296 }, "durationchange");
    expect(time.textContent).toBe("0:00 / 4:56");
    p.media({ currentTime: 83.9 }, "timeupdate");
    expect(time.textContent).toBe("1:23 / 4:56");
    p.media({ duration: 7200, currentTime: 3661 }, "timeupdate");
    expect(time.textContent).toBe("1:01:01 / 2:00:00");
    p.media({ duration: Number.POSITIVE_INFINITY, currentTime: 12 }, "durationchange");
    expect(time.textContent).toBe("0:12");
    p.media({ duration: Number.NaN, currentTime: 0 });
    p.emit("source", p.source);
    expect(time.textContent).toBe("0:00");
  });

  test("controls_options.time off or no control row: none; after teardown it no longer changes", () => {
    const off = fakePlayer({ controls_options: { time: false } });
    expect(timeDisplay(off)).toBeUndefined();
    expect(off.root.querySelector(".fl-time")).toBeNull();
    const plain = fakePlayer({}, { plain: true });
    timeDisplay(plain);
    expect(plain.root.querySelector(".fl-time")).toBeNull();

    const p = fakePlayer();
    timeDisplay(p)!();
    p.media({ duration: 60, currentTime: 30 }, "timeupdate");
    expect(p.root.querySelector(".fl-time")!.textContent).toBe("0:00");
  });
});
