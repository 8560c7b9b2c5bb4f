import type { CollectBatch, CollectEvent, PlayerEventType } from "../contract/events.ts";
import type { Identity } from "../browser/identity.ts";
import { listen } from "./dom.ts";
import { post } from "../browser/transport.ts";

const MAX_BATCH = 50;

/**
 * Batches a player's events and posts them to `{events_url}/v1/collect`.
 * A batch belongs to one video code, so a playlist flushes when it moves on.
 * The last batch leaves with sendBeacon on pagehide / hidden.
 */
export class Collector {
  private queue: CollectEvent[] = [];
  private timer: ReturnType<typeof setInterval>;
  private off: (() => void)[];
  /** Called right before every flush (heartbeat: lets watched ranges close). */
  beforeFlush: () => void = () => {};

  constructor(
    private url: string,
    private workspaceCode: string,
    private identity: Identity,
    public videoCode: string,
    intervalMs: number,
  ) {
    this.timer = setInterval(() => this.flush(false), intervalMs);
    const final = () => this.flush(true);
    this.off = [listen(window, "pagehide", final), listen(document, "visibilitychange", () => document.visibilityState === "hidden" && final())];
  }

  push(type: PlayerEventType, videoTime: number, fields?: Record<string, unknown>): void {
    this.queue.push({ type, t: Date.now(), video_time: Math.round(videoTime * 10) / 10, ...fields });
    if (this.queue.length >= MAX_BATCH) this.flush(false);
  }

  /** Sends what is queued under the current video code. */
  flush(final: boolean): void {
    this.beforeFlush();
    if (!this.queue.length) return;
    const batch: CollectBatch = {
      workspace_code: this.workspaceCode,
      video_code: this.videoCode,
      session_id: this.identity.sessionId,
      device_id: this.identity.deviceId,
      events: this.queue.splice(0),
    };
    post(this.url, batch, final);
  }

  /** Flushes under the old code, then batches under the new one. */
  switchVideo(code: string): void {
    if (code === this.videoCode) return;
    this.flush(false);
    this.videoCode = code;
  }

  destroy(): void {
    this.flush(true);
    clearInterval(this.timer);
    this.off.forEach((f) => f());
  }
}
