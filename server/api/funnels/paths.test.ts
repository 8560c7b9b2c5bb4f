import { describe, expect, test } from "bun:test";
import { buildPaths, figuresOf, type StepRow } from "./paths.ts";

const step = (session_hash: string, video_id: number, choice: string, next: number | undefined): StepRow => ({ video_id, session_hash, choice, next });
const shape = (nodes: ReturnType<typeof buildPaths>) =>
  nodes.map((n) => ({ id: n.id, parent: n.parent, depth: n.depth, choice: n.choice, video: n.video_id, sessions: [...n.sessions].sort() }));

describe("buildPaths", () => {
  test("the entry holds every session; each step taken is a child of the video it was taken on", () => {
    const nodes = buildPaths(1, new Set(["a", "b", "c"]), [
      step("a", 1, "quiz:q:yes", 2),
      step("a", 2, "cta:0", 3),
      step("b", 1, "quiz:q:yes", 2),
      step("c", 1, "quiz:q:no", 4),
    ]);
    expect(shape(nodes)).toEqual([
      { id: 0, parent: null, depth: 0, choice: null, video: 1, sessions: ["a", "b", "c"] },
      { id: 1, parent: 0, depth: 1, choice: "quiz:q:yes", video: 2, sessions: ["a", "b"] },
      { id: 2, parent: 1, depth: 2, choice: "cta:0", video: 3, sessions: ["a"] },
      { id: 3, parent: 0, depth: 1, choice: "quiz:q:no", video: 4, sessions: ["c"] },
    ]);
  });

  test("a step on another video is passed over; one on the entry starts the session over", () => {
    const nodes = buildPaths(1, new Set(["a"]), [step("a", 9, "cta:0", 2), step("a", 1, "quiz:q:yes", 2), step("a", 1, "quiz:q:no", 3)]);
    expect(shape(nodes).map((n) => [n.choice, n.video, n.sessions])).toEqual([
      [null, 1, ["a"]],
      ["quiz:q:no", 3, ["a"]],
      ["quiz:q:yes", 2, ["a"]],
    ]);
  });

  test("unknown next videos and steps past the depth are left out; a loop stops at the depth", () => {
    const loop = [step("a", 1, "cta:0", 2), step("a", 2, "cta:0", 1), step("a", 1, "cta:0", 2), step("a", 2, "cta:1", undefined)];
    expect(buildPaths(1, new Set(["a"]), loop, 2).map((n) => n.video_id)).toEqual([1, 2, 1]);
    expect(buildPaths(1, new Set(["a"]), [step("a", 1, "cta:0", undefined)]).length).toBe(1);
  });
});

describe("figuresOf", () => {
  test("counts the node's sessions on its own video; a device is one viewer, a session without one is its own", () => {
    const [, b] = buildPaths(1, new Set(["a", "b", "c"]), [step("a", 1, "x", 2), step("b", 1, "x", 2), step("c", 1, "x", 2)]);
    const facts = new Map([
      ["2:a", { played: true, completed: true, lead: true, device: "7" }],
      ["2:b", { played: true, completed: false, lead: false, device: "7" }],
      ["1:c", { played: true, completed: true, lead: true, device: "8" }],
    ]);
    expect(figuresOf(b!, facts)).toEqual({ sessions: 3, viewers: 2, plays: 2, completions: 1, leads: 1 });
  });
});
