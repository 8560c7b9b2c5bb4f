/**
 * A page for the player's unit tests, and a facade to hang controls on.
 *
 * `useDom()` gives each test of the calling file a fresh happy-dom Window and
 * installs only `window`, `document`, `location` and the window's
 * `addEventListener` as globals for that test (what the player's code reads),
 * restoring what was there after it. Nothing else is replaced: the
 * integration tests of the same `bun test` process keep Bun's own fetch,
 * Request, Response, WebSocket and timers.
 *
 * `fakePlayer()` renders the same skeleton as the Player (root, `<video>`,
 * layer, big play button, control row and track by the same settings) behind
 * a PlayerApi whose bus is recorded, and whose `<video>` a test drives with
 * `media(state, ...events)`: the state a browser would have, then its events.
 *
 * @example
 * const dom = useDom();
 * test("…", () => {
 *   const p = fakePlayer({ speed_options: { speeds: [1, 2] } });
 *   p.media({ currentTime: 30, duration: 120 }, "timeupdate");
 *   p.key("ArrowRight");
 * });
 */
import { afterEach, beforeEach } from "bun:test";
import { PropertySymbol, Window } from "happy-dom";
import { Emitter } from "../../player/emitter.ts";
import { stage } from "../../player/overlays.ts";
import type { MenuItem, PlayerApi, PlayerConfig, PlayerEvents, PlayerSettings, Source } from "../../player/types.ts";

/** What the player reads as globals; `addEventListener` is the window's in a browser (the page's `load`). */
const GLOBALS = ["window", "document", "location", "addEventListener", "removeEventListener"] as const;

export interface Dom {
  /** This test's window (its event classes: `dom.window.KeyboardEvent`). */
  readonly window: Window;
}

/** A fresh happy-dom page per test of the calling file, as the globals the player reads. */
export function useDom(url = "https://shop.example/watch"): Dom {
  const dom = {} as { window: Window };
  let saved: (PropertyDescriptor | undefined)[] = [];
  beforeEach(() => {
    const win = new Window({ url, width: 1280, height: 720 });
    dom.window = win;
    saved = GLOBALS.map((k) => Object.getOwnPropertyDescriptor(globalThis, k));
    const values = {
      window: win,
      document: win.document,
      location: win.location,
      addEventListener: win.addEventListener.bind(win),
      removeEventListener: win.removeEventListener.bind(win),
    };
    for (const k of GLOBALS) Object.defineProperty(globalThis, k, { value: values[k], configurable: true, writable: true });
  });
  afterEach(async () => {
    GLOBALS.forEach((k, i) => {
      const d = saved[i];
      if (d) Object.defineProperty(globalThis, k, d);
      else delete (globalThis as Record<string, unknown>)[k];
    });
    await dom.window.happyDOM.close();
  });
  return dom;
}

/** What a browser would have set on the `<video>` before firing its events. */
export interface MediaState {
  currentTime?: number;
  duration?: number;
  paused?: boolean;
  ended?: boolean;
  seeking?: boolean;
  readyState?: number;
  muted?: boolean;
  volume?: number;
  playbackRate?: number;
  /** A MediaError code (1 aborted, 2 network, 3 decode, 4 not supported), or null. */
  error?: number | null;
}

/** happy-dom keeps these read-only on the element: they are set under its own symbols. */
const READ_ONLY = ["duration", "paused", "ended", "seeking", "readyState"] as const;

export interface FakePlayer extends PlayerApi {
  readonly big: HTMLButtonElement;
  /** Every event emitted on the bus, in order. */
  readonly emitted: { name: keyof PlayerEvents; data: unknown }[];
  /** `auto` of every play intent asked of the facade. */
  readonly intents: boolean[];
  /** What `announce` was asked to say (a test may route it to the live region instead). */
  readonly announced: string[];
  /** The bus events of one name, in order. */
  events<K extends keyof PlayerEvents>(name: K): PlayerEvents[K][];
  /** Sets the video's state, then fires `events` on it, in order. */
  media(state: MediaState, ...events: string[]): void;
  /** A key pressed with focus on `target` (the root by default); returns whether the player took it (preventDefault). */
  key(key: string, target?: Element, init?: Record<string, unknown>): boolean;
  /** Fires a DOM event of the page's own classes on `target`. */
  fire(target: EventTarget, type: string, init?: Record<string, unknown>, kind?: "Event" | "PointerEvent" | "MouseEvent" | "KeyboardEvent"): boolean;
  play: (auto?: boolean) => void;
  announce: (text: string) => void;
  menu: (cls: string, label: string, items: () => MenuItem[], before?: Element | null) => HTMLButtonElement | null;
}

export interface FakeOptions {
  plain?: boolean;
  title?: string;
  source?: Partial<Source>;
}

/** A facade over the Player's skeleton in `document.body`, with the given settings. */
export function fakePlayer(settings: PlayerSettings = {}, options: FakeOptions = {}): FakePlayer {
  const win = document.defaultView as unknown as Window;
  const el = <K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, parent?: Element | null) => {
    const e = document.createElement(tag);
    e.className = cls;
    parent?.appendChild(e);
    return e;
  };
  const plain = !!options.plain;
  const mount = el("div", "frameline-player", document.body);
  const root = el("div", `fl-root${plain ? " fl-plain" : ""}`, mount);
  const video = el("video", "fl-video", root);
  video.preload = "none";
  // happy-dom has no `poster` property; a browser reflects it to the attribute.
  Object.defineProperty(video, "poster", { get: () => video.getAttribute("poster") || "", set: (v: string) => video.setAttribute("poster", v) });
  const layer = el("div", "fl-layer", root);
  const big = el("button", "fl-big", root);
  big.type = "button";
  big.setAttribute("aria-label", "Play");
  let controls: HTMLElement | null = null;
  let track: HTMLElement | null = null;
  if (!plain && settings.playback_options?.controls !== false) {
    controls = el("div", "fl-controls", root);
    if (settings.progress_options?.enabled !== false && settings.controls_options?.progress !== false) track = el("div", "fl-track", controls);
  }
  const title = options.title ?? "Launch video";
  const source: Source = {
    code: "vid-1",
    title,
    hls: "https://cdn.example/m/vid-1/index.m3u8",
    poster: "https://cdn.example/m/vid-1/poster.jpg",
    ...options.source,
  };
  const config = {
    video: { id: 1, code: source.code, title, workspace_code: "ws_test", default_orientation: "landscape", plain_mode: plain, landscape: null, portrait: null },
    settings,
    playlist: null,
    events_url: "https://events.example",
  } as PlayerConfig;

  const bus = new Emitter<PlayerEvents>();
  const emitted: FakePlayer["emitted"] = [];
  const intents: boolean[] = [];
  const announced: string[] = [];
  const fire: FakePlayer["fire"] = (target, type, init = {}, kind = "Event") =>
    target.dispatchEvent(new win[kind](type, { bubbles: true, cancelable: true, ...init }) as unknown as Event);

  const p: FakePlayer = {
    config,
    settings,
    plain,
    mount,
    root,
    video,
    layer,
    track,
    controls,
    big,
    source,
    startAt: 0,
    seekLimit: Number.POSITIVE_INFINITY,
    emitted,
    intents,
    announced,
    on: (name, fn) => bus.on(name, fn),
    emit(name, data) {
      emitted.push({ name, data });
      bus.emit(name, data);
    },
    events: <K extends keyof PlayerEvents>(name: K) => emitted.filter((e) => e.name === name).map((e) => e.data as PlayerEvents[K]),
    play(auto = false) {
      intents.push(auto);
      video.play();
    },
    load(s, play = false) {
      (p as { source: Source }).source = s;
      p.emit("source", s);
      if (play) p.play();
    },
    collect: (type, fields) => p.emit("collect", { type, fields }),
    // As the Player's: clamped to the limit, announced on the bus, and where the next intent starts.
    seek(seconds) {
      const to = Math.max(0, Math.min(Number(seconds) || 0, p.seekLimit));
      p.emit("seek", { to });
      p.startAt = to;
      if (video.readyState > 0) video.currentTime = to;
    },
    announce: (text) => announced.push(text),
    // As the Player's: the bus hears `destroy`, then the element is emptied.
    destroy() {
      p.emit("destroy", undefined);
      bus.clear();
      mount.replaceChildren();
    },
    // The real stage, announcing through `announced`.
    overlay: stage(root, (text) => announced.push(text)),
    menu: () => null,
    media(state, ...events) {
      const v = video as unknown as Record<string | symbol, unknown>;
      for (const [k, value] of Object.entries(state)) {
        if (k === "error") v[PropertySymbol.error] = value === null ? null : { code: value, message: "" };
        else if ((READ_ONLY as readonly string[]).includes(k)) v[PropertySymbol[k as (typeof READ_ONLY)[number]]] = value;
        else v[k] = value;
      }
      for (const type of events) video.dispatchEvent(new win.Event(type) as unknown as Event);
    },
    key: (key, target = root, init = {}) => !fire(target, "keydown", { key, ...init }, "KeyboardEvent"),
    fire,
  };
  return p;
}

/** Gives `el` a layout box (happy-dom lays nothing out): clicks and taps read it. */
export function layout(el: Element, left: number, width: number, top = 0, height = 100): void {
  el.getBoundingClientRect = () => ({ left, width, top, height, x: left, y: top, right: left + width, bottom: top + height, toJSON: () => ({}) }) as DOMRect;
}

/** Waits `ms` milliseconds (the live region speaks after a short delay). */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Clicks a toggle, lets the document report `element` in that mode (as the browser would once it entered), and clicks again. */
export function clickInAndOut(button: HTMLButtonElement, mode: "fullscreenElement" | "pictureInPictureElement", element: Element): void {
  button.click();
  Object.defineProperty(document, mode, { value: element, configurable: true });
  button.click();
}
