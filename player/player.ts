import type { PlayerEventType } from "../contract/events.ts";
import type { Feature, MenuItem, Orientation, PlayerApi, PlayerConfig, PlayerEvents, PlayerSettings, Source } from "./types.ts";
import { pickRendition } from "./orientation.ts";
import type { Identity } from "../browser/identity.ts";
import { Emitter } from "./emitter.ts";
import { ErrorDetails, ErrorTypes } from "./errors.ts";
import { h, listen } from "./dom.ts";
import { themeVars } from "./styles.ts";
import { Collector } from "./collector.ts";
import { MediaController } from "./controllers/media-controller.ts";
import { ControlsController } from "./controllers/controls-controller.ts";
import { AnalyticsController } from "./controllers/analytics-controller.ts";
import { ResumeController } from "./controllers/resume-controller.ts";
import { connectPage } from "./page-api.ts";
import { milestones } from "./milestones.ts";
import { stage, type Overlay } from "./overlays.ts";

/**
 * One player mounted into one `.frameline-player` element: the facade that
 * owns the DOM and the bus, with controllers (media, controls, analytics,
 * resume) and the video's feature modules attached to it.
 *
 * @example
 * const player = new Player(el, config, [chapters], identity);
 * player.play();
 * player.destroy();
 */
export class Player implements PlayerApi {
  readonly settings: PlayerSettings;
  readonly plain: boolean;
  readonly root: HTMLElement;
  readonly video: HTMLVideoElement;
  readonly layer: HTMLElement;
  readonly track: HTMLElement | null = null;
  readonly controls: HTMLElement | null = null;
  source: Source;
  startAt = 0;
  seekLimit = Number.POSITIVE_INFINITY;
  preloadSegments?: number;
  readonly overlay: Overlay;
  private bus = new Emitter<PlayerEvents>();
  private media: MediaController;
  private teardown: (() => void)[] = [];
  private collector: Collector;
  private chrome: ControlsController;
  private orientation: Orientation;

  constructor(
    readonly mount: HTMLElement,
    readonly config: PlayerConfig,
    features: Feature[],
    identity: Identity,
  ) {
    const s = (this.settings = config.settings || {});
    this.plain = !!config.video.plain_mode || mount.getAttribute("data-mode") === "plain";
    const { orientation, rendition } = pickRendition(config);
    this.source = { code: config.video.code, title: config.video.title, hls: rendition?.hls ?? null, poster: rendition?.poster ?? null };

    const root = (this.root = h("div", `fl-root${this.plain ? " fl-plain" : ""}`));
    this.overlay = stage(root, (text) => this.announce(text));
    this.orientation = orientation;
    this.shape();
    const vars = themeVars(s);
    // On the mount, so chrome rendered beside the player (the playlist rail) shares the theme.
    for (const k in vars) mount.style.setProperty(k, vars[k]);

    const video = (this.video = h("video", "fl-video", root));
    video.playsInline = true;
    video.setAttribute("webkit-playsinline", "");
    video.preload = "none";
    video.loop = !!s.playback_options?.loop && !config.playlist;
    video.setAttribute("aria-label", config.video.title || "Video");
    this.layer = h("div", "fl-layer", root);
    const big = h("button", "fl-big", root);
    big.type = "button";
    big.setAttribute("aria-label", "Play");
    if (!this.plain && s.playback_options?.controls !== false) {
      const controls = (this.controls = h("div", "fl-controls", root));
      if (s.progress_options?.enabled !== false && s.controls_options?.progress !== false) this.track = h("div", "fl-track", controls);
    }
    mount.replaceChildren(root);

    const heartbeat = Math.max(2, s.engagement_options?.heartbeat_s || 5) * 1000;
    this.collector = new Collector(config.events_url.replace(/\/$/, "") + "/v1/collect", config.video.workspace_code, identity, this.source.code, heartbeat);
    const controllers: { destroy(): void }[] = [];
    this.media = new MediaController(this);
    this.chrome = new ControlsController(this, big);
    controllers.push(this.media, this.chrome, new ResumeController(this));
    // Before the analytics: the end's milestone is heard ahead of `ended`.
    this.teardown.push(milestones(this));
    if (s.analytics_options?.enabled !== false) controllers.push(new AnalyticsController(this, this.collector));
    this.teardown.push(...controllers.map((c) => () => c.destroy()), connectPage(this));
    // A rotation or resize that changes which cut fits switches rendition, keeping position and play state.
    if (config.video.landscape?.hls && config.video.portrait?.hls) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      this.teardown.push(
        listen(window, "resize", () => {
          clearTimeout(timer);
          timer = setTimeout(() => this.reorient(), 150);
        }),
        () => clearTimeout(timer),
      );
    }
    // Controllers take the first source before features run, so a feature may already play (autoplay).
    this.emit("source", this.source);
    for (const f of features) {
      try {
        const off = f.setup(this);
        if (off) this.teardown.push(off);
      } catch (e) {
        this.emit("error", { type: ErrorTypes.OTHER, details: ErrorDetails.FEATURE_SETUP, fatal: false, error: e });
      }
    }
    this.emit("ready", undefined);
  }

  /** The root's orientation class and aspect ratio for the current cut. */
  private shape(): void {
    const o = this.orientation;
    const r = this.config.video[o];
    const root = this.root;
    root.classList.remove("fl-portrait", "fl-landscape");
    root.classList.add("fl-" + o);
    const w = r?.w || (o === "portrait" ? 9 : 16);
    const hh = r?.h || (o === "portrait" ? 16 : 9);
    root.style.aspectRatio = `${w} / ${hh}`;
    // A portrait video never grows taller than the window.
    root.style.maxWidth = hh > w ? `calc(100vh * ${w} / ${hh})` : "";
  }

  /** Switches to the cut that fits the viewport now (the container video only), where playback was. */
  private reorient(): void {
    const { orientation, rendition } = pickRendition(this.config);
    if (orientation === this.orientation || !rendition?.hls || this.source.code !== this.config.video.code) return;
    const v = this.video;
    const at = v.currentTime || this.startAt;
    const playing = !v.paused && !v.ended;
    const active = this.media.active;
    this.orientation = orientation;
    this.shape();
    this.source = { ...this.source, hls: rendition.hls, poster: rendition.poster };
    this.media.attach(this.source);
    this.startAt = at;
    if (active) this.media.resume(playing);
  }

  announce(text: string): void {
    this.chrome.announce(text);
  }

  menu(cls: string, label: string, items: () => MenuItem[], before?: Element | null): HTMLButtonElement | null {
    return this.chrome.menu(cls, label, items, before);
  }

  on<K extends keyof PlayerEvents>(name: K, fn: (data: PlayerEvents[K]) => void): () => void {
    return this.bus.on(name, fn);
  }

  emit<K extends keyof PlayerEvents>(name: K, data: PlayerEvents[K]): void {
    this.bus.emit(name, data);
  }

  play(auto = false): void {
    this.media.intent(auto);
  }

  load(source: Source, play = false): void {
    this.source = source;
    this.emit("source", source);
    if (play) this.play();
  }

  collect(type: PlayerEventType, fields?: Record<string, unknown>, now = false): void {
    // What must not wait for the next batch (a lead) goes at once, analytics on or off.
    if (now) {
      this.collector.push(type, this.video.currentTime || 0, fields);
      this.collector.flush(false);
      return;
    }
    this.emit("collect", { type, fields });
  }

  seek(seconds: number): void {
    const to = Math.max(0, Math.min(Number(seconds) || 0, this.seekLimit));
    this.emit("seek", { to });
    // Before the stream is attached, the next play intent starts there.
    this.startAt = to;
    if (this.video.readyState > 0) this.video.currentTime = to;
  }

  destroy(): void {
    this.emit("destroy", undefined);
    this.teardown.reverse().forEach((f) => f());
    this.collector.destroy();
    this.bus.clear();
    this.mount.replaceChildren();
  }
}
