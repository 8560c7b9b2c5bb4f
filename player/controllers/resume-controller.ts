import type { PlayerApi, Source } from "../types.ts";
import { h, listen } from "../dom.ts";
import { read, write } from "../../browser/storage.ts";
import { RANK_RESUME } from "../overlay-ranks.ts";

const SAVE_EVERY_S = 2;
/** Within the last 5 s (5 % of a short video) counts as finished: a returning viewer starts over. */
const endMargin = (duration: number) => Math.min(5, duration * 0.05);

/**
 * Resume where a returning viewer stopped (continue_watching_options): the
 * position is kept per video code in localStorage; on the poster a prompt
 * offers to resume or start over, and a plain play press resumes.
 */
export class ResumeController {
  private off: (() => void)[] = [];
  private savedAt = 0;
  private prompt: HTMLElement | null = null;
  private release = () => {};

  constructor(private player: PlayerApi) {
    this.registerListeners();
  }

  private key(code = this.player.source.code): string {
    return "fl_pos:" + code;
  }

  private registerListeners(): void {
    const { player } = this;
    const video = player.video;
    const save = () => {
      const t = video.currentTime;
      const nearEnd = video.ended || video.duration - t < endMargin(video.duration);
      if (t > 0) write("localStorage", this.key(), nearEnd ? null : String(Math.floor(t)));
    };
    this.off.push(
      player.on("source", (s) => this.offer(s)),
      player.on("intent", () => this.hidePrompt()),
      listen(video, "timeupdate", () => {
        if (Math.abs(video.currentTime - this.savedAt) >= SAVE_EVERY_S) {
          this.savedAt = video.currentTime;
          save();
        }
      }),
      listen(video, "pause", save),
      listen(window, "pagehide", save),
      listen(video, "ended", () => write("localStorage", this.key(), null)),
    );
  }

  private offer(source: Source): void {
    this.hidePrompt();
    const { player } = this;
    const opts = player.settings.continue_watching_options || {};
    const start = player.settings.playback_options?.start_time_s || 0;
    player.startAt = start;
    if (opts.enabled === false) return;
    const saved = Number(read("localStorage", this.key(source.code)));
    if (!(saved >= (opts.min_seconds ?? 10))) return;
    player.startAt = saved;
    if (player.plain) return;
    const box = (this.prompt = h("div", "fl-prompt", player.layer));
    const text = opts.prompt_text || "Continue where you left off?";
    h("p", "", box, text);
    const yes = h("button", "fl-btn", box, "Resume");
    const no = h("button", "fl-btn fl-ghost", box, "Start over");
    yes.type = no.type = "button";
    yes.onclick = () => player.play();
    no.onclick = () => {
      player.startAt = start;
      player.play();
    };
    this.release = player.overlay(box, RANK_RESUME, { say: text });
  }

  private hidePrompt(): void {
    this.release();
    this.prompt?.remove();
    this.prompt = null;
  }

  destroy(): void {
    this.hidePrompt();
    this.off.forEach((f) => f());
  }
}
