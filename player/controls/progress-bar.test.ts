import { describe, expect, test } from "bun:test";
import { fakePlayer, layout, useDom } from "../../test/helpers/player-dom.ts";
import { progressBar } from "./progress-bar.ts";

useDom();

const aria = (el: Element) => ["aria-valuemin", "aria-valuemax", "aria-valuenow", "aria-valuetext"].map((a) => el.getAttribute(a));

describe("progress bar", () => {
  test("a keyboard slider whose value is the position in seconds, spoken as 'm:ss of m:ss'", () => {
    const p = fakePlayer();
    progressBar(p);
    const track = p.track!;
    const fill = track.querySelector<HTMLElement>(".fl-fill")!;
    expect(track.getAttribute("role")).toBe("slider");
    expect(track.getAttribute("aria-label")).toBe("Seek");
    expect(track.tabIndex).toBe(0);
    expect(aria(track)).toEqual(["0", "0", "0", "0:00"]);
    p.media({ duration: 296 }, "durationchange");
    p.media({ currentTime: 83.4 }, "timeupdate");
    expect(aria(track)).toEqual(["0", "296", "83", "1:23 of 4:56"]);
    expect(fill.style.width).toBe(`${(83.4 / 296) * 100}%`);
    // A live stream has no end: no maximum, no "of".
    p.media({ duration: Number.POSITIVE_INFINITY, currentTime: 5 }, "durationchange");
    expect(aria(track)).toEqual(["0", "0", "5", "0:05"]);
    expect(fill.style.width).toBe("0%");
  });

  test("a click seeks to that share of the video; a new source starts the bar over", () => {
    const p = fakePlayer();
    progressBar(p);
    layout(p.track!, 100, 200);
    p.media({ duration: 120, readyState: 1 }, "durationchange");
    p.fire(p.track!, "click", { clientX: 150 }, "MouseEvent");
    expect(p.events("seek")).toEqual([{ to: 30 }]);
    expect(p.video.currentTime).toBe(30);
    // Past either end of the bar: the end itself.
    p.fire(p.track!, "click", { clientX: 400 }, "MouseEvent");
    expect(p.events("seek").at(-1)).toEqual({ to: 120 });
    p.media({ currentTime: 0, duration: Number.NaN });
    p.emit("source", p.source);
    expect(aria(p.track!)).toEqual(["0", "0", "0", "0:00"]);
  });

  test("fast_start: the bar runs ahead (square root), and a click maps back to the real position", () => {
    const p = fakePlayer({ progress_options: { fast_start: true } });
    progressBar(p);
    layout(p.track!, 0, 200);
    p.media({ duration: 120, currentTime: 30, readyState: 1 }, "timeupdate");
    expect(p.track!.querySelector<HTMLElement>(".fl-fill")!.style.width).toBe("50%");
    p.fire(p.track!, "click", { clientX: 100 }, "MouseEvent");
    expect(p.events("seek")).toEqual([{ to: 30 }]);
  });

  test("no seeking when allow_seek is off (read-only slider) or while cloaked", () => {
    const locked = fakePlayer({ playback_options: { allow_seek: false } });
    progressBar(locked);
    layout(locked.track!, 0, 200);
    locked.media({ duration: 120 });
    expect(locked.track!.getAttribute("aria-readonly")).toBe("true");
    locked.fire(locked.track!, "click", { clientX: 100 }, "MouseEvent");
    expect(locked.events("seek")).toEqual([]);

    const cloaked = fakePlayer();
    progressBar(cloaked);
    layout(cloaked.track!, 0, 200);
    cloaked.media({ duration: 120 });
    cloaked.root.classList.add("fl-cloaked");
    cloaked.fire(cloaked.track!, "click", { clientX: 100 }, "MouseEvent");
    expect(cloaked.events("seek")).toEqual([]);
    expect(cloaked.track!.hasAttribute("aria-readonly")).toBe(false);
  });

  test("nothing without a track (progress off); after teardown the bar stays where it was", () => {
    const none = fakePlayer({ progress_options: { enabled: false } });
    expect(progressBar(none)).toBeUndefined();
    expect(none.root.querySelector(".fl-fill")).toBeNull();

    const p = fakePlayer();
    const off = progressBar(p)!;
    off();
    p.media({ duration: 100, currentTime: 50 }, "timeupdate");
    expect(p.track!.getAttribute("aria-valuenow")).toBe("0");
  });
});
