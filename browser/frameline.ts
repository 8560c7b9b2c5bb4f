/**
 * `window.Frameline`, the page's one global (docs/api.md "Custom events", client
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
 *
 * `player(videoCode?)` is the page API (player/README.md "Page API"): a
 * handle on a player of the page, the first one without a code. It exists as
 * soon as any Frameline script ran, so a page may take it before the player
 * is ready: calls are queued until then. Handles and players meet in the page
 * state, so a handle the tracker made works with a player that loads later.
 */
import { resolveIdentity, type Identity } from "./identity.ts";
import { trackBody } from "./track-body.ts";
import { outboxFor } from "./outbox.ts";
import { randomId } from "./storage.ts";

export interface FramelineGlobal {
  /** Sends a custom event; fire and forget, never throws. */
  track(name: string, properties?: Record<string, unknown>): void;
  getSessionId(): string;
  getDeviceId(): string;
  /** The page API: a player of this page (the first one without a code), usable before it is ready. */
  player(videoCode?: string): PagePlayer;
  /** Functions pushed here run with the global once it exists (a page may push before any script loaded). */
  q: { push(fn: (frameline: FramelineGlobal) => void): void };
}

/** Events a page can listen to (player/README.md "Page API"). */
export type PagePlayerEvent = "ready" | "play" | "pause" | "timeupdate" | "ended" | "timed_event" | "cta_click" | "lead" | "quiz_answer";
type Handler = (data: Record<string, unknown>) => void;

/** What a player does for the page: the page API's calls and properties. */
interface PlayerActions {
  play(): void;
  pause(): void;
  seek(seconds: number): void;
  /** Opens a watch gate, as a submitted lead form does. */
  unlock(): void;
  readonly currentTime: number;
  readonly duration: number;
  muted: boolean;
}

/** What a page holds: `Frameline.player()`. */
export interface PagePlayer extends PlayerActions {
  /** The player is mounted and its features are set up. */
  readonly ready: boolean;
  on(name: PagePlayerEvent, handler: Handler): PagePlayer;
  off(name: PagePlayerEvent, handler?: Handler): PagePlayer;
}

/** What a mounted player gives the page API (player/page-api.ts builds it). */
export interface PlayerControl extends PlayerActions {
  readonly code: string;
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

/** A handle's state, plain data so that any bundle's copy of this module can bind it. */
interface HandleState {
  control: PlayerControl | null;
  listeners: Record<string, Handler[]>;
  queue: [keyof PlayerControl, unknown][];
}

interface PageState {
  identity: Identity;
  target: TrackTarget;
  byTracker: boolean;
  players: PlayerControl[];
  /** Handles by video code ("" for "the first player"). */
  handles: Record<string, PagePlayer & { [STATE]: HandleState }>;
}

type Installed = FramelineGlobal & { [STATE]?: PageState };

/** Runs a page handler outside our loop: its exception reaches the page's console, never the player. */
function call(fn: Handler, data: Record<string, unknown>): void {
  try {
    fn(data);
  } catch (e) {
    setTimeout(() => {
      throw e;
    });
  }
}

function bind(handle: { [STATE]: HandleState }, control: PlayerControl): void {
  const h = handle[STATE];
  if (h.control) return;
  h.control = control;
  for (const [method, arg] of h.queue.splice(0)) {
    if (method === "muted") control.muted = arg as boolean;
    else (control[method] as (a: unknown) => void)(arg);
  }
  for (const fn of (h.listeners.ready || []).slice()) call(fn, {});
}

function handleFor(s: PageState, code: string): PagePlayer {
  const existing = s.handles[code];
  if (existing) return existing;
  const state: HandleState = { control: null, listeners: {}, queue: [] };
  const act = (method: keyof PlayerControl, arg?: unknown) =>
    state.control ? (state.control[method] as (a: unknown) => void)(arg) : state.queue.push([method, arg]);
  const handle: PagePlayer & { [STATE]: HandleState } = {
    play: () => act("play"),
    pause: () => act("pause"),
    seek: (seconds) => act("seek", seconds),
    unlock: () => act("unlock"),
    get currentTime() {
      return state.control?.currentTime ?? 0;
    },
    get duration() {
      return state.control?.duration ?? Number.NaN;
    },
    get muted() {
      return state.control?.muted ?? false;
    },
    set muted(value) {
      if (state.control) state.control.muted = value;
      else state.queue.push(["muted", !!value]);
    },
    get ready() {
      return state.control !== null;
    },
    on(name, fn) {
      (state.listeners[name] ||= []).push(fn);
      // Already ready: the page still hears it, as it would have.
      if (name === "ready" && state.control) setTimeout(() => call(fn, {}));
      return handle;
    },
    off(name, fn) {
      state.listeners[name] = fn ? (state.listeners[name] || []).filter((f) => f !== fn) : [];
      return handle;
    },
    [STATE]: state,
  };
  s.handles[code] = handle;
  const control = code ? s.players.find((p) => p.code === code) : s.players[0];
  if (control) bind(handle, control);
  return handle;
}

/**
 * A player is ready: page handles waiting for it (by its code, or for the
 * first player) bind to it and their queued calls run.
 */
export function registerPlayer(control: PlayerControl): void {
  const s = (window.Frameline as Installed | undefined)?.[STATE];
  if (!s) return;
  s.players.push(control);
  const byCode = s.handles[control.code];
  if (byCode) bind(byCode, control);
  const first = s.handles[""];
  if (first && s.players[0] === control) bind(first, control);
}

/** A player went away (destroyed): its handles go back to waiting, for a player mounted later. */
export function unregisterPlayer(control: PlayerControl): void {
  const s = (window.Frameline as Installed | undefined)?.[STATE];
  if (!s) return;
  s.players = s.players.filter((p) => p !== control);
  for (const key in s.handles) {
    const h = s.handles[key]![STATE];
    if (h.control === control) h.control = null;
  }
}

/** Sends a player's event to the page handles bound to it. */
export function dispatchToPage(control: PlayerControl, name: PagePlayerEvent, data: Record<string, unknown> = {}): void {
  const s = (window.Frameline as Installed | undefined)?.[STATE];
  if (!s) return;
  for (const key in s.handles) {
    const h = s.handles[key]![STATE];
    if (h.control === control) for (const fn of (h.listeners[name] || []).slice()) call(fn, data);
  }
}

/**
 * The page's global, created on first use; `by` is who asks (the tracker's
 * target replaces a player's, a player's never replaces one). A page's own
 * stub (`window.Frameline = {q: []}`) is replaced and its queue run.
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
  const waiting = Array.isArray(current?.q) ? (current.q as unknown as ((f: FramelineGlobal) => void)[]) : [];
  const s: PageState = { identity: resolveIdentity(), target, byTracker: by === "tracker", players: [], handles: {} };
  const created: Installed = {
    track(name, properties) {
      const to = s.target;
      trackBody(to.workspaceCode, s.identity, name, properties).then(
        // An id of its own, so that a retry (or a beacon at unload) is the same event to the events host.
        (body) => body && outboxFor(to.url).send({ ...body, event_id: body.event_id ?? randomId() }),
        () => {},
      );
    },
    getSessionId: () => s.identity.sessionId,
    getDeviceId: () => s.identity.deviceId,
    player: (videoCode) => handleFor(s, videoCode ? String(videoCode) : ""),
    q: { push: (fn) => call(fn as never, created as never) },
    [STATE]: s,
  };
  window.Frameline = created;
  for (const fn of waiting) if (typeof fn === "function") created.q.push(fn);
  return created;
}
