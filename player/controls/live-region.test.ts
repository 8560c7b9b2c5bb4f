import { describe, expect, test } from "bun:test";
import { fakePlayer, sleep, useDom } from "../../test/helpers/player-dom.ts";
import { liveRegion } from "./live-region.ts";

useDom();

describe("live region", () => {
  test("a polite region in the root that says each text, the same text again too", async () => {
    const p = fakePlayer();
    const announce = liveRegion(p.root);
    const live = p.root.lastElementChild!;
    expect([live.className, live.getAttribute("aria-live"), live.textContent]).toEqual(["fl-sr", "polite", ""]);
    announce("Volume 50%");
    await sleep(70);
    expect(live.textContent).toBe("Volume 50%");
    // Emptied first, so a screen reader hears the repeat as a change.
    announce("Volume 50%");
    expect(live.textContent).toBe("");
    await sleep(70);
    expect(live.textContent).toBe("Volume 50%");
  });
});
