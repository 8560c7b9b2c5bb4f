import { describe, expect, test } from "bun:test";
import { fakePlayer, useDom } from "../test/helpers/player-dom.ts";
import { RANK_CTA, RANK_END, RANK_EXIT, RANK_HEADLINE, RANK_LEAD, RANK_QUIZ, RANK_RESUME, RANK_THUMB } from "./overlay-ranks.ts";

useDom();

/** An element in the layer with a button (or an input), as a feature would render it. */
function box(name: string, inner: "button" | "input" = "button"): HTMLElement {
  const el = document.createElement("div");
  el.className = name;
  el.appendChild(document.createElement(inner));
  document.querySelector(".fl-layer")!.appendChild(el);
  return el;
}
/** Puts a new box on the stage; answers what a feature does when it goes: release, then remove. */
function put(p: ReturnType<typeof fakePlayer>, name: string, rank: number, options?: Parameters<typeof p.overlay>[2]): () => void {
  const el = box(name);
  const release = p.overlay(el, rank, options);
  return () => (release(), el.remove());
}
const shown = () => [...document.querySelectorAll<HTMLElement>(".fl-layer > div")].filter((e) => !e.classList.contains("fl-wait")).map((e) => e.className);

describe("the stage over the video", () => {
  test("one overlay at a time, by rank; the one that gave way comes back when the one above it goes", () => {
    const p = fakePlayer();
    const cta = put(p, "cta", RANK_CTA);
    expect(shown()).toEqual(["cta"]);
    const exit = put(p, "exit", RANK_EXIT);
    const end = put(p, "end", RANK_END);
    expect(shown()).toEqual(["exit"]);
    exit();
    expect(shown()).toEqual(["end"]);
    end();
    expect(shown()).toEqual(["cta"]);
    cta();
    expect(shown()).toEqual([]);
  });

  test("within a rank, the first to ask; a release is once; an element taken off the page leaves the stage", () => {
    const p = fakePlayer();
    const first = box("first");
    p.overlay(first, RANK_CTA);
    const second = box("second");
    const release = p.overlay(second, RANK_CTA);
    expect(shown()).toEqual(["first"]);
    first.remove();
    p.overlay(box("headline"), RANK_HEADLINE);
    expect(shown()).toEqual(["second"]);
    release();
    release();
    second.remove();
    expect(shown()).toEqual(["headline"]);
  });

  test("the live region says the one shown, when it is shown", () => {
    const p = fakePlayer();
    const resume = put(p, "resume", RANK_RESUME, { say: "Continue where you left off?" });
    put(p, "headline", RANK_HEADLINE, { say: "Headline" });
    put(p, "thumb", RANK_THUMB);
    expect(p.announced).toEqual(["Continue where you left off?"]);
    resume();
    expect(p.announced).toEqual(["Continue where you left off?", "Headline"]);
  });

  test("focus follows the one shown: into a modal one; from one that gave way into the next; back to the player at the end", () => {
    const p = fakePlayer();
    const lead = box("lead", "input");
    const releaseLead = p.overlay(lead, RANK_LEAD, { say: "Get the guide", modal: true });
    expect(document.activeElement).toBe(lead.querySelector("input"));
    // A question due meanwhile waits, unfocused.
    const quiz = box("quiz");
    const releaseQuiz = p.overlay(quiz, RANK_QUIZ, { say: "Which plan?", modal: true });
    expect(shown()).toEqual(["lead"]);
    expect(document.activeElement).toBe(lead.querySelector("input"));
    releaseLead();
    lead.remove();
    expect(document.activeElement).toBe(quiz.querySelector("button"));
    expect(p.announced).toEqual(["Get the guide", "Which plan?"]);
    // A CTA card under it takes no focus; when the question goes, focus does not stay on a removed button.
    const cta = put(p, "cta", RANK_CTA);
    p.root.tabIndex = 0;
    releaseQuiz();
    quiz.remove();
    expect(document.activeElement).toBe(document.querySelector(".cta button"));
    cta();
    expect(document.activeElement).toBe(p.root);
  });
});
