import { describe, expect, test } from "bun:test";
import { clickInAndOut, fakePlayer, useDom } from "../../test/helpers/player-dom.ts";
import { pipButton } from "./pip-button.ts";

useDom();

/** What a browser with picture in picture offers. */
function offerPip(video: HTMLVideoElement, calls: string[]) {
  Object.assign(document, { pictureInPictureEnabled: true, exitPictureInPicture: async () => void calls.push("exit") });
  Object.assign(video, { requestPictureInPicture: async () => void calls.push("enter") });
}

describe("picture in picture", () => {
  test("controls_options.pip: a button that enters, and leaves when a video is in picture in picture", () => {
    const calls: string[] = [];
    const p = fakePlayer({ controls_options: { pip: true } });
    offerPip(p.video, calls);
    pipButton(p);
    const b = p.controls!.querySelector<HTMLButtonElement>(".fl-pip")!;
    expect(b.getAttribute("aria-label")).toBe("Picture in picture");
    clickInAndOut(b, "pictureInPictureElement", p.video);
    expect(calls).toEqual(["enter", "exit"]);
  });

  test("off by default, and never where the browser has none", () => {
    const p = fakePlayer();
    offerPip(p.video, []);
    pipButton(p);
    expect(p.root.querySelector(".fl-pip")).toBeNull();
    const q = fakePlayer({ controls_options: { pip: true } });
    pipButton(q);
    expect(q.root.querySelector(".fl-pip")).toBeNull();
  });
});
