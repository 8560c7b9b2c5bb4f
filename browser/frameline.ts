/**
 * `window.Frameline`, the page's one global (SPEC.md "Custom events", client
 * surface): `track(name, properties)`, `getSessionId()`, `getDeviceId()`.
 * The player and the standalone tracker both bundle this module. Whichever
 * runs first creates the global and resolves the viewer's ids; the other
 * finds it and uses it, so a page has one global and one pair of ids in
 * either order (even where storage is blocked and ids cannot be re-read).
 * The global is extended, never replaced: a script adds its own API to the
 * object `frameline()` returns (as the player will add `player()`).
 *
 * Where `track()` sends does not depend on load order either: to the
 * tracker's `data-host` and `data-workspace` when the tracker is on the page
 * (the page owner's explicit choice), else to the first player's events host
 * and workspace.
 */
import { resolveIdentity, type Identity } from "./identity.ts";
import { trackBody } from "./track-body.ts";
import { post } from "./transport.ts";

export interface FramelineGlobal {
  /** Sends a custom event; fire and forget, never throws. */
  track(name: string, properties?: Record<string, unknown>): void;
  getSessionId(): string;
  getDeviceId(): string;
}

export interface TrackTarget {
  /** `{events host}/v1/track`. */
  url: string;
  workspaceCode: string;
}

declare global {
  interface Window {
    Frameline?: FramelineGlobal;
  }
}

/** Page state shared across bundles (each has its own copy of this module), under a registry symbol so it stays off the public API. */
const STATE = Symbol.for("frameline.page");

interface PageState {
  identity: Identity;
  target: TrackTarget;
  byTracker: boolean;
}

type Installed = FramelineGlobal & { [STATE]?: PageState };

/**
 * The page's global, created on first use; `by` is who asks (the tracker's
 * target replaces a player's, a player's never replaces one).
 *
 * @example
 *   const page = frameline({ url: "https://events.example/v1/track", workspaceCode: "ws_1" }, "player");
 *   page.getSessionId();
 */
export function frameline(target: TrackTarget, by: "tracker" | "player"): FramelineGlobal {
  const current = window.Frameline as Installed | undefined;
  const state = current?.[STATE];
  if (current && state) {
    if (by === "tracker" && !state.byTracker) Object.assign(state, { target, byTracker: true });
    return current;
  }
  const s: PageState = { identity: resolveIdentity(), target, byTracker: by === "tracker" };
  const created: Installed = {
    track(name, properties) {
      const to = s.target;
      trackBody(to.workspaceCode, s.identity, name, properties).then(
        (body) => body && post(to.url, body, true),
        () => {},
      );
    },
    getSessionId: () => s.identity.sessionId,
    getDeviceId: () => s.identity.deviceId,
    [STATE]: s,
  };
  window.Frameline = created;
  return created;
}
