import type { MenuItem, PlayerApi } from "../types.ts";
import { clock, h, listen } from "../dom.ts";

const ERROR_TEXT: Record<string, string> = {
  network: "The video could not load. Check your connection and try again.",
  media: "The video could not play in this browser.",
};

const STEPS = { ArrowLeft: -5, ArrowRight: 5, j: -10, l: 10, PageDown: -10, PageUp: 10 };

const on = (el: Element, name: string, value: string | number | boolean) => el.setAttribute(name, String(value));

/**
 * The themed chrome: big play button over the poster, and a control row with
 * play/pause, the progress bar (a keyboard slider), time, speed and quality
 * menus, picture in picture, mute and fullscreen (controls_options); the
 * keyboard map, double-tap seek, the live region and the error overlay.
 * Plain mode keeps only the big play button and hands over to the browser's
 * native controls once playing.
 */
export class ControlsController {
  private off: (() => void)[] = [];
  private fill: HTMLElement | null = null;
  private time: HTMLElement | null = null;
  private playBtn: HTMLButtonElement | null = null;
  private muteBtn: HTMLButtonElement | null = null;
  private speedBtn: HTMLButtonElement | null = null;
  private qualityBtn: HTMLButtonElement | null = null;
  private live: HTMLElement;
  private menuEl: HTMLElement | null = null;
  private menuBtn: HTMLElement | null = null;
  private errorEl: HTMLElement | null = null;
  private level = -1;

  constructor(
    private player: PlayerApi,
    private big: HTMLButtonElement,
  ) {
    this.live = h("div", "fl-sr", player.root);
    on(this.live, "aria-live", "polite");
    this.build();
    this.registerListeners();
  }

  private build(): void {
    const { player } = this;
    const s = player.settings;
    const c = s.controls_options || {};
    const controls = player.controls;
    const video = player.video;
    const rate = s.speed_options?.default_speed;
    if (rate && rate > 0) video.defaultPlaybackRate = video.playbackRate = rate;
    if (s.playback_options?.show_play_button === false) this.big.hidden = true;
    if (!controls) return;
    if (c.play !== false) {
      const b = (this.playBtn = this.button("fl-play", "Play"));
      b.onclick = () => this.toggle();
    }
    const track = player.track;
    if (track) {
      this.fill = h("div", "fl-fill", track);
      on(track, "role", "slider");
      on(track, "aria-label", "Seek");
      on(track, "aria-valuemin", 0);
      track.tabIndex = 0;
      if (s.playback_options?.allow_seek !== false) {
        track.onclick = (e) => {
          const d = video.duration;
          const r = track.getBoundingClientRect();
          if (!(d > 0) || !r.width || this.cloaked()) return;
          player.seek(this.unscale(Math.min(1, Math.max(0, (e.clientX - r.left) / r.width))) * d);
        };
      } else on(track, "aria-readonly", true);
    }
    if (c.time !== false) this.time = h("span", "fl-time", controls, "0:00");
    h("span", "fl-grow", controls);
    const speeds = s.speed_options?.speeds || [];
    if (s.playback_options?.allow_speed !== false && c.settings !== false && speeds.length > 1) {
      this.speedBtn = this.menu("fl-speed", "Speed", () =>
        speeds.map((r) => ({ label: r + "x", checked: r === video.playbackRate, run: () => (video.playbackRate = r) })),
      );
    }
    if (c.pip && document.pictureInPictureEnabled && "requestPictureInPicture" in video) {
      this.button("fl-pip", "Picture in picture").onclick = () =>
        (document.pictureInPictureElement ? document.exitPictureInPicture() : video.requestPictureInPicture()).catch(() => {});
    }
    if (c.volume !== false) {
      const b = (this.muteBtn = this.button("fl-mute", "Mute"));
      b.onclick = () => (video.muted = !video.muted);
    }
    if (c.fullscreen !== false && ("requestFullscreen" in player.root || "webkitEnterFullscreen" in video)) {
      this.button("fl-fs", "Fullscreen").onclick = () => this.fullscreen();
    }
  }

  /** A named button in the control row, before the mute and fullscreen buttons when they exist. */
  private button(cls: string, label: string, before?: Element | null): HTMLButtonElement {
    const controls = this.player.controls!;
    const b = h("button", "fl-btn " + cls);
    b.type = "button";
    on(b, "aria-label", label);
    controls.insertBefore(b, before === undefined ? controls.querySelector(".fl-mute,.fl-fs") : before);
    return b;
  }

  /** PlayerApi.menu: a button that opens a menu of radio items, operable by keyboard (arrows, Home, End, Esc). */
  menu(cls: string, label: string, items: () => MenuItem[], before?: Element | null): HTMLButtonElement | null {
    if (!this.player.controls) return null;
    const b = this.button(cls, label, before);
    on(b, "aria-haspopup", "menu");
    on(b, "aria-expanded", false);
    b.onclick = () => this.open(b, label, items());
    return b;
  }

  private open(btn: HTMLElement, label: string, items: MenuItem[]): void {
    const same = this.menuBtn === btn;
    this.close(false);
    if (same) return;
    const m = (this.menuEl = h("div", "fl-menu", this.player.root));
    this.menuBtn = btn;
    on(m, "role", "menu");
    on(m, "aria-label", label);
    on(btn, "aria-expanded", true);
    let first: HTMLElement | null = null;
    for (const it of items) {
      const b = h("button", "", m, it.label);
      b.type = "button";
      b.tabIndex = -1;
      on(b, "role", "menuitemradio");
      on(b, "aria-checked", !!it.checked);
      b.onclick = () => {
        this.close(true);
        it.run();
      };
      if (it.checked || !first) first = it.checked ? b : first || b;
    }
    m.onkeydown = (e) => {
      const list = [...m.children] as HTMLElement[];
      const i = list.indexOf(document.activeElement as HTMLElement);
      const n = ({ ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: list.length - 1 } as Record<string, number | undefined>)[e.key];
      if (e.key === "Tab") this.close(false);
      if (n === undefined) return;
      e.preventDefault();
      list[(n + list.length) % list.length]?.focus();
    };
    first?.focus();
  }

  private close(focus: boolean): void {
    if (!this.menuEl) return;
    this.menuEl.remove();
    this.menuEl = null;
    on(this.menuBtn!, "aria-expanded", false);
    if (focus) this.menuBtn!.focus();
    this.menuBtn = null;
  }

  announce(text: string): void {
    this.live.textContent = "";
    setTimeout(() => (this.live.textContent = text), 50);
  }

  /** progress_options.fast_start: the bar runs ahead early and slows later (VSL habit). */
  private scale(p: number): number {
    return this.player.settings.progress_options?.fast_start ? Math.sqrt(p) : p;
  }

  private unscale(p: number): number {
    return this.player.settings.progress_options?.fast_start ? p * p : p;
  }

  private toggle(): void {
    const v = this.player.video;
    if (v.paused || v.ended) this.player.play();
    else v.pause();
  }

  private cloaked(): boolean {
    return this.player.root.classList.contains("fl-cloaked") || this.player.settings.playback_options?.allow_seek === false;
  }

  /** Seeks to `to` seconds, within the video (and the facade's limit), unless seeking is off or cloaked. */
  private seekTo(to: number): void {
    const d = this.player.video.duration;
    if (this.cloaked() || !(d > 0)) return;
    this.player.seek(Math.max(0, Math.min(to, d)));
  }

  private fullscreen(): void {
    const root = this.player.root;
    const video = this.player.video as IosVideo;
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    else if ((root as Partial<HTMLElement>).requestFullscreen) root.requestFullscreen().catch(() => {});
    else video.webkitEnterFullscreen?.();
  }

  /** The keyboard map while focus is in the player (not in a form field, not on a button's own Space/Enter). */
  private key(e: KeyboardEvent): void {
    const { player } = this;
    const video = player.video;
    const t = e.target as HTMLElement;
    if (e.ctrlKey || e.metaKey || e.altKey || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) || t.isContentEditable) return;
    if (e.key === "Escape" && this.menuEl) {
      this.close(true);
      e.preventDefault();
      return;
    }
    if (this.menuEl?.contains(t) || player.plain) return;
    if ((e.key === " " || e.key === "Enter") && /^(BUTTON|A)$/.test(t.tagName)) return;
    const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    const now = video.currentTime;
    const d = video.duration;
    const onSlider = t === player.track;
    const step = (STEPS as Record<string, number | undefined>)[k];
    if (k === " " || k === "k") this.toggle();
    else if (step !== undefined && (onSlider || !k.startsWith("Page"))) this.seekTo(now + step);
    else if (onSlider && (k === "Home" || k === "End")) this.seekTo(k === "Home" ? 0 : d);
    else if (k === "ArrowUp" || k === "ArrowDown") {
      video.volume = Math.round(Math.max(0, Math.min(1, video.volume + (k === "ArrowUp" ? 0.1 : -0.1))) * 10) / 10;
      if (k === "ArrowUp") video.muted = false;
      this.announce(`Volume ${Math.round(video.volume * 100)}%`);
    } else if (k === "m") video.muted = !video.muted;
    else if (k === "f") this.fullscreen();
    else if (k === "c") player.root.querySelector<HTMLElement>(".fl-cc")?.click();
    else if (/^[0-9]$/.test(k)) this.seekTo((d * Number(k)) / 10);
    else return;
    e.preventDefault();
  }

  private showError(type: string, details: string): void {
    this.errorEl?.remove();
    const box = (this.errorEl = h("div", "fl-err", this.player.root));
    on(box, "role", "alert");
    h("p", "", box, details === "noStream" ? "This video is not ready yet." : ERROR_TEXT[type] || "Something went wrong while playing this video.");
    const retry = h("button", "fl-btn", box, "Retry");
    retry.type = "button";
    retry.onclick = () => {
      this.clearError();
      this.player.emit("retry", undefined);
    };
  }

  private clearError(): void {
    this.errorEl?.remove();
    this.errorEl = null;
  }

  private registerListeners(): void {
    const { player, big } = this;
    const video = player.video;
    const root = player.root;
    const track = player.track;
    const state = () => {
      const playing = !video.paused && !video.ended;
      root.classList.toggle("fl-playing", playing);
      this.playBtn?.setAttribute("aria-label", playing ? "Pause" : "Play");
      this.playBtn?.classList.toggle("fl-on", playing);
    };
    const progress = () => {
      const d = video.duration;
      const known = d > 0 && Number.isFinite(d);
      const p = known ? video.currentTime / d : 0;
      if (this.fill) this.fill.style.width = this.scale(p) * 100 + "%";
      if (this.time) this.time.textContent = clock(video.currentTime) + (known ? " / " + clock(d) : "");
      if (track) {
        on(track, "aria-valuemax", known ? Math.round(d) : 0);
        on(track, "aria-valuenow", Math.round(video.currentTime || 0));
        on(track, "aria-valuetext", clock(video.currentTime) + (known ? " of " + clock(d) : ""));
      }
    };
    const volume = () => {
      this.muteBtn?.classList.toggle("fl-on", video.muted);
      this.muteBtn?.setAttribute("aria-label", video.muted ? "Unmute" : "Mute");
    };
    const rate = () => {
      if (!this.speedBtn) return;
      this.speedBtn.textContent = video.playbackRate + "x";
      on(this.speedBtn, "aria-label", `Speed ${video.playbackRate}x`);
    };
    big.onclick = () => player.play();
    // Controls fade after 2.5 s without pointer movement while playing.
    let idle: ReturnType<typeof setTimeout> | undefined;
    const wake = () => {
      root.classList.remove("fl-idle");
      clearTimeout(idle);
      idle = setTimeout(() => root.classList.add("fl-idle"), 2500);
    };
    // Double tap on a touch screen: the left third seeks back 10 s, the right third forward.
    let tapAt = 0;
    const tap = (e: PointerEvent) => {
      if (e.pointerType !== "touch") return;
      if (e.timeStamp - tapAt > 300) {
        tapAt = e.timeStamp;
        return;
      }
      tapAt = 0;
      const r = video.getBoundingClientRect();
      const x = (e.clientX - r.left) / r.width;
      if (x < 1 / 3 || x > 2 / 3) this.seekTo(video.currentTime + (x < 1 / 3 ? -10 : 10));
    };
    root.tabIndex = 0;
    on(root, "role", "region");
    on(root, "aria-label", "Video player: " + (player.config.video.title || "video"));
    this.off.push(
      () => clearTimeout(idle),
      listen(root, "pointermove", wake),
      listen(root, "pointerdown", wake),
      listen(root, "keydown", (e) => {
        wake();
        this.key(e as KeyboardEvent);
      }),
      listen(document, "pointerdown", (e) => {
        const t = e.target as Node;
        if (this.menuEl && !this.menuEl.contains(t) && !this.menuBtn?.contains(t)) this.close(false);
      }),
      listen(video, "pointerup", (e) => tap(e as PointerEvent)),
      listen(video, "play", state),
      listen(video, "pause", state),
      listen(video, "ended", state),
      listen(video, "timeupdate", progress),
      listen(video, "durationchange", progress),
      listen(video, "volumechange", volume),
      listen(video, "ratechange", rate),
      // Clicking the picture toggles playback, as viewers expect.
      listen(video, "click", () => !player.plain && this.toggle()),
      player.on("intent", () => {
        root.classList.add("fl-active");
        if (player.plain) video.controls = true;
      }),
      player.on("source", () => {
        root.classList.remove("fl-active");
        video.controls = false;
        this.clearError();
        this.qualityBtn?.remove();
        this.qualityBtn = null;
        this.level = -1;
        progress();
      }),
      player.on("error", (e) => e.fatal && this.showError(e.type, e.details)),
      player.on("levels", ({ heights }) => {
        // A new stream (a rendition switch) brings its own ladder, on Auto.
        this.qualityBtn?.remove();
        this.qualityBtn = null;
        this.level = -1;
        if (heights.length < 2 || player.settings.controls_options?.settings === false) return;
        const pick = (index: number) => () => {
          this.level = index;
          player.emit("level", { index });
        };
        this.qualityBtn = this.menu("fl-q", "HD quality", () => [
          { label: "Auto", checked: this.level < 0, run: pick(-1) },
          // Best first; hls.js lists them by bitrate, lowest first.
          ...heights.map((px, i) => ({ label: px + "p", checked: this.level === i, run: pick(i), px })).sort((a, b) => b.px - a.px),
        ]);
        if (this.qualityBtn) this.qualityBtn.textContent = "HD";
      }),
    );
    state();
    volume();
    rate();
    progress();
  }

  destroy(): void {
    this.close(false);
    this.off.forEach((f) => f());
  }
}

type IosVideo = HTMLVideoElement & { webkitEnterFullscreen?: () => void };
