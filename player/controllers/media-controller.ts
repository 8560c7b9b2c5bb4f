import type { PlayerApi, Source } from "../types.ts";
import { listen } from "../dom.ts";
import { ErrorDetails, ErrorTypes, fromHlsType, fromMediaError } from "../errors.ts";

type HlsModule = typeof import("hls.js/light");
type HlsInstance = InstanceType<HlsModule["default"]>;

const HLS_MIME = "application/vnd.apple.mpegurl";

/**
 * Whether a stream needs hls.js: the page pays for hls.js (its own chunk) only
 * when the browser cannot play HLS itself. `playback_options.hls_engine` =
 * "hlsjs" forces hls.js where MSE exists (see player/README.md).
 */
export function needsHlsJs(video: HTMLVideoElement, url: string, engine: string | undefined): boolean {
  if (!/\.m3u8(\?|#|$)/i.test(url)) return false;
  const mse = "MediaSource" in window || "ManagedMediaSource" in window;
  if (!mse || engine === "native") return false;
  return engine === "hlsjs" || !video.canPlayType(HLS_MIME);
}

/** The hls.js chunk, fetched once per page: on idle after load, on pointer-over, at the latest on play intent. */
let hlsChunk: Promise<HlsModule> | null = null;
const loadHls = (): Promise<HlsModule> => {
  hlsChunk ||= import("hls.js/light");
  // A failed fetch is retried by the next intent (and reported there).
  hlsChunk.catch(() => (hlsChunk = null));
  return hlsChunk;
};

/** Runs `fn` when the page has loaded and the main thread is idle. */
function onIdle(fn: () => void): void {
  const run = () => (window.requestIdleCallback || setTimeout)(() => fn());
  if (document.readyState === "complete") run();
  else addEventListener("load", run, { once: true });
}

/** A `<link rel=preconnect>` to the stream's origin when it is not the page's, so the first request skips DNS, TCP and TLS. */
function preconnect(url: string, cors: boolean): void {
  try {
    const origin = new URL(url, location.href).origin;
    if (origin === location.origin || document.querySelector(`link[rel=preconnect][href="${origin}"]`)) return;
    const link = document.createElement("link");
    link.rel = "preconnect";
    link.href = origin;
    if (cors) link.crossOrigin = "anonymous";
    document.head.appendChild(link);
  } catch {
    // Not a URL: the intent reports it.
  }
}

/**
 * Owns the `<video>` source: poster first, stream on intent; measures startup
 * (intent → first frame) and rebuffering; turns media and hls.js failures into
 * `error` events `{type, details, fatal}` (player/errors.ts).
 */
export class MediaController {
  private hls: HlsInstance | null = null;
  /** ready: the stream is attached ahead of intent (playback_options.preload "auto"). */
  private state: "idle" | "ready" | "loading" | "started" = "idle";
  private intentAt = 0;
  /** A frame was decoded when the intent came (preload "auto", turbo): the poster gives way to it as playback begins. */
  private framed = false;
  private stallAt = 0;
  private recovered = false;
  /** A fatal error stopped this source: no more warming until Retry or another source. */
  private failed = false;
  /** Bumped on every source change, so a late hls.js import for an old source is dropped. */
  private generation = 0;
  private off: (() => void)[] = [];

  constructor(private player: PlayerApi) {
    this.registerListeners();
  }

  private registerListeners(): void {
    const { video, player } = { video: this.player.video, player: this.player };
    this.off.push(
      listen(video, "playing", () => {
        if (this.state === "loading") this.firstFrame();
        else if (this.stallAt) {
          player.collect("rebuffer", { ms: Math.round(performance.now() - this.stallAt) });
          this.stallAt = 0;
        }
      }),
      listen(video, "waiting", () => {
        if (this.state === "started" && !video.seeking) this.stallAt = performance.now();
      }),
      listen(video, "seeking", () => (this.stallAt = 0)),
      // Native controls (plain mode) or a script may start playback: that is a play intent too.
      listen(video, "play", () => (this.state === "idle" || this.state === "ready") && this.intent(false)),
      // Pointing at the player is a strong hint of a play to come: hls.js and the manifest (no segments) are fetched.
      listen(player.root, "pointerover", () => this.warm()),
      player.on("level", ({ index }) => {
        if (this.hls) this.hls.currentLevel = index;
      }),
      player.on("error", (e) => e.fatal && (this.failed = true)),
      player.on("retry", () => {
        const at = video.currentTime || player.startAt;
        this.detach();
        player.startAt = at;
        this.intent(false);
      }),
      listen(video, "error", () => {
        const err = video.error;
        if (err && video.getAttribute("src")) player.emit("error", { ...fromMediaError(err.code), fatal: true, error: err });
      }),
      player.on("source", (s) => this.attach(s)),
    );
  }

  private hlsNeeded(): boolean {
    const url = this.player.source.hls;
    return !!url && needsHlsJs(this.player.video, url, this.player.settings.playback_options?.hls_engine);
  }

  /**
   * The poster; then, by playback_options.preload: "none" fetches nothing
   * before intent (a pointer over the player still fetches hls.js), "metadata"
   * (the default) fetches hls.js when the page is idle, "auto" attaches the
   * stream when the page is idle, as "metadata" does when a feature asks for
   * segments ahead (`preloadSegments`, turbo). The stream's origin is preconnected.
   */
  attach(source: Source): void {
    this.detach();
    const { video, settings } = this.player;
    if (source.poster) video.poster = source.poster;
    else video.removeAttribute("poster");
    const url = source.hls;
    if (!url) return;
    const preload = settings.playback_options?.preload;
    const hlsjs = this.hlsNeeded();
    preconnect(url, hlsjs);
    const generation = this.generation;
    if (preload !== "none")
      onIdle(() => {
        if (generation !== this.generation) return;
        if (this.state === "idle" && (preload === "auto" || this.player.preloadSegments)) {
          this.state = "ready";
          this.open(url, false);
        } else if (hlsjs) loadHls().catch(() => {});
      });
  }

  /** Reattaches the current source where playback was (a rendition switch): no new intent, no new startup. */
  resume(play: boolean): void {
    const url = this.player.source.hls;
    if (!url) return;
    this.state = "started";
    this.open(url, play);
  }

  /** True once the viewer (or autoplay) asked to play this source. */
  get active(): boolean {
    return this.state === "loading" || this.state === "started";
  }

  private detach(): void {
    this.generation++;
    this.state = "idle";
    this.stallAt = 0;
    this.recovered = false;
    this.failed = false;
    this.hls?.destroy();
    this.hls = null;
    const video = this.player.video;
    if (video.getAttribute("src")) {
      video.removeAttribute("src");
      video.load();
    }
  }

  /** Play intent: load the stream the cheapest way this browser allows, then play. */
  intent(auto: boolean): void {
    const { player } = this;
    if (this.state === "loading" || this.state === "started") {
      this.tryPlay();
      return;
    }
    const url = player.source.hls;
    if (!url) {
      player.emit("error", { type: ErrorTypes.OTHER, details: ErrorDetails.NO_STREAM, fatal: true });
      return;
    }
    const prepared = this.state === "ready";
    this.state = "loading";
    this.intentAt = performance.now();
    this.framed = player.video.readyState >= 2;
    player.emit("intent", { auto });
    if (prepared) {
      if (this.hls && !this.hls.media) this.begin(this.hls);
      this.tryPlay();
    } else this.open(url, true);
  }

  /** Under hls.js, a pointer over the player loads hls.js and the manifest (unless preload is "none"): the intent starts at the segments. */
  private warm(): void {
    if (!this.hlsNeeded() || this.failed) return;
    if (this.state !== "idle" || this.player.settings.playback_options?.preload === "none") {
      loadHls().catch(() => {});
      return;
    }
    this.state = "ready";
    this.open(this.player.source.hls!, false, true);
  }

  /** Attaches a warmed hls.js instance to the video and starts loading segments where playback starts. */
  private begin(hls: HlsInstance): void {
    hls.attachMedia(this.player.video);
    hls.startLoad(this.player.startAt > 0 ? this.player.startAt : -1);
  }

  /** Attaches `url` (native or hls.js) from `startAt`, and plays when `play`; `warm` loads hls.js's manifest only. */
  private open(url: string, play: boolean, warm = false): void {
    const { player } = this;
    const video = player.video;
    const startAt = player.startAt;
    const go = () => play && this.tryPlay();
    if (!this.hlsNeeded()) {
      if (!play) video.preload = "auto";
      video.src = url;
      if (startAt > 0) {
        const off = listen(video, "loadedmetadata", () => {
          off();
          video.currentTime = startAt;
        });
      }
      go();
      return;
    }
    const generation = this.generation;
    loadHls().then(
      ({ default: Hls }) => {
        if (generation !== this.generation) return;
        if (!Hls.isSupported()) {
          video.src = url;
          go();
          return;
        }
        const hls = (this.hls = new Hls({ startPosition: startAt > 0 ? startAt : -1, capLevelToPlayerSize: true, autoStartLoad: !warm }));
        player.emit("hls", hls);
        hls.on(Hls.Events.ERROR, (_e, data) => this.onHlsError(Hls, data));
        hls.on(Hls.Events.MANIFEST_PARSED, (_e, data) => player.emit("levels", { heights: data.levels.map((l) => l.height) }));
        hls.loadSource(url);
        if (!warm) hls.attachMedia(video);
        // The intent came while hls.js was still on its way.
        else if (this.state === "loading") {
          this.begin(hls);
          this.tryPlay();
        }
        go();
      },
      (e) => {
        if (generation !== this.generation) return;
        this.state = "idle";
        player.emit("error", { type: ErrorTypes.NETWORK, details: ErrorDetails.HLS_CHUNK_LOAD, fatal: true, error: e });
      },
    );
  }

  /**
   * hls.js has already retried network failures by its own policy when it
   * reports them fatal; a fatal media error gets the one recovery attempt
   * hls.js documents. Anything else stops this source.
   */
  private onHlsError(Hls: HlsModule["default"], data: { fatal: boolean; type: string; details: string; error?: Error }): void {
    const hls = this.hls;
    const error = { type: fromHlsType(data.type), details: data.details, error: data.error };
    if (!data.fatal || !hls) {
      this.player.emit("error", { ...error, fatal: false });
      return;
    }
    if (data.type === Hls.ErrorTypes.MEDIA_ERROR && !this.recovered) {
      this.recovered = true;
      this.player.emit("error", { ...error, fatal: false });
      hls.recoverMediaError();
      return;
    }
    this.player.emit("error", { ...error, fatal: true });
    hls.destroy();
    this.hls = null;
    this.state = "idle";
  }

  private tryPlay(): void {
    const video = this.player.video;
    const p = video.play();
    // Autoplay policy or an aborted load: back to the poster, the viewer can press play.
    p?.catch((e: Error) => {
      if (e && e.name === "AbortError") return;
      if (this.state === "loading" && e && e.name === "NotAllowedError")
        this.player.emit("error", { type: ErrorTypes.OTHER, details: ErrorDetails.PLAY_NOT_ALLOWED, fatal: false, error: e });
    });
  }

  private firstFrame(): void {
    const video = this.player.video;
    const done = () => {
      if (this.state !== "loading") return;
      this.state = "started";
      this.player.emit("started", { ms: Math.round(performance.now() - this.intentAt) });
    };
    // A frame decoded ahead was presented under the poster: no new one marks the start, the poster leaving does.
    if (!this.framed && "requestVideoFrameCallback" in video) video.requestVideoFrameCallback(done);
    else done();
  }

  get started(): boolean {
    return this.state === "started";
  }

  destroy(): void {
    this.detach();
    this.off.forEach((f) => f());
  }
}
