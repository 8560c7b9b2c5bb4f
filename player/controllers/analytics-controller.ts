import type { PlayerApi } from "../types.ts";
import type { PlayerEventType } from "../../contract/events.ts";
import type { Collector } from "../collector.ts";
import { listen } from "../dom.ts";
import { pageContext } from "../page-context.ts";

const round = (s: number) => Math.round(s * 10) / 10;

/**
 * Turns what the `<video>` does into the player's analytics events: play,
 * pause, seek {from,to}, ended, watched {from_s,to_s} ranges (closed on pause,
 * seek, end and at every heartbeat flush, so watch time and retention need no
 * separate heartbeat event), milestones crossed by playback (a seek past 50 %
 * is not "watched 50 %"), startup, rebuffer (from the media controller) and errors.
 *
 * A play is an intentional start: `load` says the player was shown (once per
 * page view), a start that a muted autoplay made is sent as `autoplay`, and
 * unmuting it sends `unmute` (the viewer chose to watch). A start after a user
 * gesture in the player, or unmuted, is a `play`.
 */
export class AnalyticsController {
  private off: (() => void)[] = [];
  /** Start of the range being watched now, or -1 when not playing. */
  private rangeFrom = -1;
  /** Last position seen while not seeking (seek `from`, range end). */
  private last = 0;
  /** The next start comes from an autoplay intent (no gesture since). */
  private autoStart = false;
  /** This source is playing a muted autoplay the viewer has not unmuted yet. */
  private autoplaying = false;

  constructor(
    private player: PlayerApi,
    private collector: Collector,
  ) {
    collector.beforeFlush = () => this.closeRange(true);
    this.registerListeners();
    collector.push("load", 0, pageContext());
  }

  private registerListeners(): void {
    const { player, collector } = this;
    const video = player.video;
    const push = (type: PlayerEventType, fields?: Record<string, unknown>) => collector.push(type, video.currentTime || 0, fields);
    this.off.push(
      player.on("collect", ({ type, fields }) => push(type, fields)),
      player.on("started", ({ ms }) => push("startup", { ms })),
      // `type` names the player event on the wire, so the error's own type travels as `error_type`.
      player.on("error", ({ type, details, fatal }) => push("error", { error_type: type, details, fatal })),
      player.on("source", (s) => {
        this.closeRange(false);
        collector.switchVideo(s.code);
        this.last = 0;
        this.autoStart = this.autoplaying = false;
      }),
      player.on("intent", ({ auto }) => (this.autoStart = auto)),
      listen(player.root, "pointerdown", () => (this.autoStart = false)),
      listen(player.root, "keydown", () => (this.autoStart = false)),
      listen(video, "volumechange", () => {
        if (this.autoplaying && !video.muted) {
          this.autoplaying = false;
          push("unmute");
        }
      }),
      listen(video, "playing", () => {
        if (this.rangeFrom < 0) this.rangeFrom = video.currentTime;
      }),
      listen(video, "play", () => {
        const auto = this.autoStart && video.muted;
        this.autoStart = false;
        if (auto) this.autoplaying = true;
        push(auto ? "autoplay" : "play");
      }),
      listen(video, "pause", () => {
        if (video.ended) return;
        this.closeRange(false);
        push("pause");
      }),
      listen(video, "seeking", () => {
        this.closeRange(false, this.last);
        push("seek", { from: round(this.last), to: round(video.currentTime) });
        this.last = video.currentTime;
      }),
      listen(video, "seeked", () => {
        if (!video.paused) this.rangeFrom = video.currentTime;
      }),
      listen(video, "timeupdate", () => !video.seeking && (this.last = video.currentTime)),
      // The end's milestone comes before `ended` (milestones.ts listens first): the range closes before both.
      player.on("milestone", ({ percent }) => {
        if (percent === 100) this.closeRange(false);
        push("milestone", { percent });
      }),
      listen(video, "ended", () => {
        this.closeRange(false);
        push("ended");
      }),
    );
  }

  /** Emits the range watched since `rangeFrom`; `reopen` keeps measuring (heartbeat). */
  private closeRange(reopen: boolean, to = this.player.video.currentTime): void {
    if (this.rangeFrom < 0) return;
    const from = this.rangeFrom;
    const video = this.player.video;
    // The duration travels with each range so retention buckets span the whole video.
    const duration = Number.isFinite(video.duration) && video.duration > 0 ? { duration_s: round(video.duration) } : {};
    if (to - from >= 0.1) this.collector.push("watched", to, { from_s: round(from), to_s: round(to), ...duration });
    this.rangeFrom = reopen && !video.paused && !video.seeking ? to : -1;
  }

  destroy(): void {
    this.closeRange(false);
    this.off.forEach((f) => f());
  }
}
