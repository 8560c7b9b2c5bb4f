/**
 * The player's own types: its facade, its event bus and its features. The
 * config the compiler bakes in and the wire shapes it sends are the contract
 * with the server (contract/), re-exported here for the player's files.
 */
import type { PlayerError } from "./errors.ts";
import type { PlayerSettings, PlayerConfig } from "../contract/player-config.ts";
import type { PlayerEventType } from "../contract/events.ts";
import type { OverlayOptions } from "./overlays.ts";
import type Hls from "hls.js/light";

export type {
  Orientation,
  Rendition,
  ChapterOption,
  CtaCardOption,
  CaptionTrackOption,
  PlayerSettings,
  TimedEventOption,
  ActionOption,
  LeadField,
  QuizQuestionOption,
  NoteOption,
  UserEventOption,
  PlaylistItem,
  PlaylistConfig,
  PlayerConfig,
} from "../contract/player-config.ts";
export type { CollectBatch, CollectEvent } from "../contract/events.ts";

/** What is playing now: the container video or a playlist item. */
export interface Source {
  code: string;
  title: string;
  hls: string | null;
  poster: string | null;
}

/** Events on the player's own bus (controllers and features talk through these). */
export interface PlayerEvents {
  /** A new source was attached (poster shown, nothing loaded yet). */
  source: Source;
  /** hls.js parsed the stream's renditions (heights, best first as listed); native HLS never sends it. */
  levels: { heights: number[] };
  /** Pick a rendition: its index in `levels`, or -1 for Auto. */
  level: { index: number };
  /** The viewer pressed Retry on the error overlay: the source loads again where it stopped. */
  retry: undefined;
  /** The viewer (or autoplay) asked to play. */
  intent: { auto: boolean };
  /** The first frame after a play intent is on screen. */
  started: { ms: number };
  /** Playback crossed 25, 50 or 75 % of the source, or reached its end (100); a seek crosses nothing (milestones.ts). */
  milestone: { percent: number };
  /** The media controller made an hls.js instance for the source, not yet loading: features may tune its config (turbo). */
  hls: Hls;
  /** Something failed, in hls.js's shape (player/errors.ts); `fatal` means playback of this source stopped. */
  error: PlayerError;
  /** Analytics event to send (type + extra fields). */
  collect: { type: PlayerEventType; fields?: Record<string, unknown> };
  /** The current source played to its end. */
  ended: Source;
  /** Controllers and features are set up: the page API reports `ready`. */
  ready: undefined;
  /** A seek asked through `seek()` (page API, replay): features that guard seeking let it through. */
  seek: { to: number };
  /** The page called `unlock()`: a watch gate opens. */
  unlock: undefined;
  /** A timed reveal (or the pitch) was reached; `restored` when a returning viewer gets it at load. */
  timed_event: TimedEventData;
  /** A viewer answered the lead form or watch gate. */
  lead: LeadData;
  /** A viewer answered a quiz question (emitted by the quiz feature). */
  quiz_answer: Record<string, unknown>;
  /** A quiz choice or CTA card names the video to swap to in place (a funnel step; the funnel feature does it). */
  next_video: { code: string };
  destroy: undefined;
}

export interface TimedEventData {
  name: string | null;
  time_s: number;
  selector: string | null;
  action: "show" | "hide";
  restored: boolean;
}

export interface LeadData {
  email: string;
  first_name?: string;
  last_name?: string;
  phone?: string;
}

/**
 * The facade a feature module receives. Features are bundled into the
 * per-video entry, the facade lives in the core: features use only this
 * interface (and `import type`), so no core code is shipped twice.
 */
export interface PlayerApi {
  readonly config: PlayerConfig;
  readonly settings: PlayerSettings;
  readonly plain: boolean;
  /** The element the player rendered into (`.frameline-player`). */
  readonly mount: HTMLElement;
  readonly root: HTMLElement;
  readonly video: HTMLVideoElement;
  /** Overlay layer above the video (cards, prompts). */
  readonly layer: HTMLElement;
  /** Progress track (chapter markers go here); null in plain mode or without a bar. */
  readonly track: HTMLElement | null;
  /** Control row (feature buttons go here); null in plain mode. */
  readonly controls: HTMLElement | null;
  readonly source: Source;
  /** Where the next play intent starts, seconds (resume, start_time_s). */
  startAt: number;
  on<K extends keyof PlayerEvents>(name: K, fn: (data: PlayerEvents[K]) => void): () => void;
  emit<K extends keyof PlayerEvents>(name: K, data: PlayerEvents[K]): void;
  /** Play intent: loads the stream (hls.js only now, only if needed) and plays. */
  play(auto?: boolean): void;
  /** Replaces the source (playlist); `play` starts it at once. */
  load(source: Source, play?: boolean): void;
  /** Sends an analytics event in the next batch. */
  /** Sends a player event; `now`: in a batch of its own at once, kept and retried until the events host has it. */
  collect(type: PlayerEventType, fields?: Record<string, unknown>, now?: boolean): void;
  /**
   * Seeks to `seconds` (before playback: where playback will start), never past
   * `seekLimit`; emits `seek` first so guards (cloak) let it through. Controls
   * that seek should call this too.
   */
  seek(seconds: number): void;
  /** Furthest point a seek or playback may reach (a watch gate sets it); Infinity when free. Controls honour it. */
  seekLimit: number;
  /** Says `text` through the player's live region (screen readers). */
  announce(text: string): void;
  /**
   * Puts `el` (in the layer, or the root) on the stage over the video at `rank`
   * (overlay-ranks.ts: lower wins): shown while it ranks highest, else hidden until
   * those above it are released; `say` is announced and a `modal` one takes focus when
   * shown. Returns its release: call it before removing the element.
   */
  overlay(el: HTMLElement, rank: number, options?: OverlayOptions): () => void;
  /**
   * Segments to fetch before play intent when playback_options.preload allows (not
   * "none"): the stream is attached when the page is idle and stops there (turbo). Unset:
   * the preload setting alone decides.
   */
  preloadSegments?: number;
  /**
   * Adds a button to the control row (before `before`, else before the mute
   * button) that opens a keyboard-operable menu of `items()` (read at each
   * opening); null without a control row.
   */
  menu(cls: string, label: string, items: () => MenuItem[], before?: Element | null): HTMLButtonElement | null;
  /** Tears the player down (its last batch leaves) and empties its element: a funnel swaps in the next video's player. */
  destroy(): void;
}

export interface MenuItem {
  label: string;
  checked?: boolean;
  run(): void;
}

/** A feature module baked into a video's entry when its flag is on. */
export interface Feature {
  name: string;
  /** Returns its teardown, like a controller's destroy. */
  setup(player: PlayerApi): (() => void) | undefined;
}
