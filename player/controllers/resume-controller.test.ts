import { describe, expect, test } from "bun:test";
import type { PlayerSettings } from "../types.ts";
import { fakePlayer, useDom } from "../../test/helpers/player-dom.ts";
import { ResumeController } from "./resume-controller.ts";

useDom();

const KEY = "fl_pos:vid-1";

/** A returning viewer (`saved` seconds in localStorage, or none) loading the video. */
function setup(saved: string | null, settings: PlayerSettings = {}, plain = false) {
  if (saved === null) window.localStorage.removeItem(KEY);
  else window.localStorage.setItem(KEY, saved);
  const p = fakePlayer(settings, { plain });
  const resume = new ResumeController(p);
  p.emit("source", p.source);
  const prompt = () => p.layer.querySelector(".fl-prompt");
  const press = (label: string) => [...p.layer.querySelectorAll<HTMLButtonElement>(".fl-prompt button")].find((b) => b.textContent === label)!.click();
  return { p, resume, prompt, press };
}

describe("resume controller", () => {
  test("a saved position offers to continue: Resume plays from there", () => {
    const { p, prompt, press } = setup("42");
    expect(p.startAt).toBe(42);
    expect(prompt()!.querySelector("p")!.textContent).toBe("Continue where you left off?");
    expect([...prompt()!.querySelectorAll("button")].map((b) => [b.textContent, b.className, b.type])).toEqual([
      ["Resume", "fl-btn", "button"],
      ["Start over", "fl-btn fl-ghost", "button"],
    ]);
    press("Resume");
    expect(p.intents).toEqual([false]);
    expect(p.startAt).toBe(42);
  });

  test("Start over plays from start_time_s; the intent removes the prompt", () => {
    const { p, prompt, press } = setup("42", { playback_options: { start_time_s: 5 }, continue_watching_options: { prompt_text: "Welcome back!" } });
    expect(prompt()!.querySelector("p")!.textContent).toBe("Welcome back!");
    press("Start over");
    expect([p.startAt, p.intents]).toEqual([5, [false]]);
    p.emit("intent", { auto: false });
    expect(prompt()).toBeNull();
  });

  test("below min_seconds, disabled, or nothing saved: start_time_s and no prompt; plain mode resumes without asking", () => {
    expect(setup("9").p.startAt).toBe(0);
    const short = setup("42", { continue_watching_options: { min_seconds: 60 }, playback_options: { start_time_s: 3 } });
    const off = setup("42", { continue_watching_options: { enabled: false } });
    const none = setup(null);
    expect([short, off, none].map(({ prompt }) => prompt() === null)).toEqual([true, true, true]);
    expect([short.p.startAt, off.p.startAt, none.p.startAt]).toEqual([3, 0, 0]);
    const plain = setup("42", {}, true);
    expect([plain.p.startAt, plain.prompt()]).toEqual([42, null]);
  });

  test("playing saves the whole second every 2 s of movement, on pause and when the page goes away", () => {
    const { p } = setup(null);
    p.media({ duration: 300, currentTime: 1.5 }, "timeupdate");
    expect(window.localStorage.getItem(KEY)).toBeNull();
    p.media({ currentTime: 2.7 }, "timeupdate");
    expect(window.localStorage.getItem(KEY)).toBe("2");
    p.media({ currentTime: 4.1 }, "timeupdate");
    expect(window.localStorage.getItem(KEY)).toBe("2");
    p.media({ currentTime: 4.8 }, "timeupdate");
    expect(window.localStorage.getItem(KEY)).toBe("4");
    p.media({ currentTime: 5.9, paused: true }, "pause");
    expect(window.localStorage.getItem(KEY)).toBe("5");
    p.media({ currentTime: 6.5 });
    window.dispatchEvent(new window.Event("pagehide"));
    expect(window.localStorage.getItem(KEY)).toBe("6");
  });

  test("near the end (last 5 s, or 5 % of a short video) or ended, the position is forgotten", () => {
    const { p } = setup(null);
    p.media({ duration: 100, currentTime: 94 }, "pause");
    expect(window.localStorage.getItem(KEY)).toBe("94");
    p.media({ currentTime: 96 }, "pause");
    expect(window.localStorage.getItem(KEY)).toBeNull();
    p.media({ duration: 20, currentTime: 18.5 }, "pause");
    expect(window.localStorage.getItem(KEY)).toBe("18");
    p.media({ currentTime: 19.2 }, "pause");
    expect(window.localStorage.getItem(KEY)).toBeNull();
    p.media({ currentTime: 10 }, "pause");
    p.media({ currentTime: 20, ended: true }, "ended");
    expect(window.localStorage.getItem(KEY)).toBeNull();
  });

  test("destroy removes the prompt and stops saving", () => {
    const { p, resume, prompt } = setup("42");
    resume.destroy();
    expect(prompt()).toBeNull();
    p.media({ duration: 300, currentTime: 120 }, "timeupdate", "pause");
    expect(window.localStorage.getItem(KEY)).toBe("42");
  });
});
