import type { PlayerApi } from "../types.ts";
import { clock, h, listen } from "../dom.ts";

/**
 * The themed chrome: big play button over the poster, and a control row with
 * play/pause, the progress bar (progress_options), time, speed, mute and
 * fullscreen (controls_options). Plain mode keeps only the big play button and
 * hands over to the browser's native controls once playing.
 */
export class ControlsController {
  private off: (() => void)[] = [];
  private fill: HTMLElement | null = null;
  private time: HTMLElement | null = null;
  private playBtn: HTMLButtonElement | null = null;
  private muteBtn: HTMLButtonElement | null = null;

  constructor(
    private player: PlayerApi,
    private big: HTMLButtonElement,
  ) {
    this.build();
    this.registerListeners();
  }

  private build(): void {
    const { player } = this;
    const s = player.settings;
    const c = s.controls_options || {};
    const controls = player.controls;
    if (s.playback_options?.show_play_button === false) this.big.hidden = true;
    if (!controls) return;
    if (c.play !== false) {
      const b = (this.playBtn = h("button", "fl-btn fl-play", controls));
      b.onclick = () => this.toggle();
    }
    const track = player.track;
    if (track) {
      this.fill = h("div", "fl-fill", track);
      if (s.playback_options?.allow_seek !== false) {
        track.onclick = (e) => {
          const d = player.video.duration;
          const r = track.getBoundingClientRect();
          if (!(d > 0) || !r.width) return;
          player.video.currentTime = this.unscale(Math.min(1, Math.max(0, (e.clientX - r.left) / r.width))) * d;
        };
      }
    }
    if (c.time !== false) this.time = h("span", "fl-time", controls, "0:00");
    h("span", "fl-grow", controls);
    const speeds = s.speed_options?.speeds || [];
    if (s.playback_options?.allow_speed !== false && c.settings !== false && speeds.length > 1) {
      const b = h("button", "fl-btn fl-speed", controls, "1x");
      b.onclick = () => {
        const v = player.video;
        const next = speeds[(speeds.indexOf(v.playbackRate) + 1) % speeds.length] || 1;
        v.playbackRate = next;
        b.textContent = next + "x";
      };
    }
    if (c.volume !== false) {
      const b = (this.muteBtn = h("button", "fl-btn fl-mute", controls));
      b.onclick = () => (player.video.muted = !player.video.muted);
    }
    if (c.fullscreen !== false && player.root.requestFullscreen) {
      const b = h("button", "fl-btn fl-fs", controls);
      b.setAttribute("aria-label", "Fullscreen");
      b.onclick = () => (document.fullscreenElement ? document.exitFullscreen() : player.root.requestFullscreen()).catch(() => {});
    }
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

  private registerListeners(): void {
    const { player, big } = this;
    const video = player.video;
    const root = player.root;
    const state = () => {
      const playing = !video.paused && !video.ended;
      root.classList.toggle("fl-playing", playing);
      this.playBtn?.setAttribute("aria-label", playing ? "Pause" : "Play");
      this.playBtn?.classList.toggle("fl-on", playing);
    };
    const progress = () => {
      const d = video.duration;
      const p = d > 0 && Number.isFinite(d) ? video.currentTime / d : 0;
      if (this.fill) this.fill.style.width = this.scale(p) * 100 + "%";
      if (this.time) this.time.textContent = clock(video.currentTime) + (d > 0 && Number.isFinite(d) ? " / " + clock(d) : "");
    };
    const volume = () => {
      this.muteBtn?.classList.toggle("fl-on", video.muted);
      this.muteBtn?.setAttribute("aria-label", video.muted ? "Unmute" : "Mute");
    };
    big.onclick = () => player.play();
    // Controls fade after 2.5 s without pointer movement while playing.
    let idle: ReturnType<typeof setTimeout> | undefined;
    const wake = () => {
      root.classList.remove("fl-idle");
      clearTimeout(idle);
      idle = setTimeout(() => root.classList.add("fl-idle"), 2500);
    };
    this.off.push(
      () => clearTimeout(idle),
      listen(root, "pointermove", wake),
      listen(root, "pointerdown", wake),
      listen(video, "play", state),
      listen(video, "pause", state),
      listen(video, "ended", state),
      listen(video, "timeupdate", progress),
      listen(video, "durationchange", progress),
      listen(video, "volumechange", volume),
      // Clicking the picture toggles playback, as viewers expect.
      listen(video, "click", () => !player.plain && this.toggle()),
      player.on("intent", () => {
        root.classList.add("fl-active");
        if (player.plain) video.controls = true;
      }),
      player.on("source", () => {
        root.classList.remove("fl-active");
        video.controls = false;
        progress();
      }),
    );
    state();
    volume();
  }

  destroy(): void {
    this.off.forEach((f) => f());
  }
}
