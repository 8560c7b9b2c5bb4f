import type { CollectBatch, CollectEvent, PlayerEventType } from "../contract/events.ts";
import type { Identity } from "../browser/identity.ts";
import { listen } from "./dom.ts";
import { outboxFor, type Outbox } from "../browser/outbox.ts";
import { read, write } from "../browser/storage.ts";

const MAX_BATCH = 50;

/** The next batch number of a session: kept per tab, shared by the page's players (page state when storage is refused). */
function nextSeq(session: string): number {
  const key = `fl:seq:${session}`;
  const page = window as unknown as Record<symbol, Record<string, number> | undefined>;
  const seqs = (page[Symbol.for("frameline.seq")] ??= {});
  const seq = Math.max(seqs[key] ?? 0, Number(read("sessionStorage", key)) || 0) + 1;
  seqs[key] = seq;
  write("sessionStorage", key, String(seq));
  return seq;
}

/**
 * Batches a player's events and posts them to `{events_url}/v1/collect` through
 * the page's outbox (browser/outbox.ts: kept and retried until the events host
 * has them), each batch numbered in its session so a batch sent again is written
 * once. A batch belongs to one video code, so a playlist flushes when it moves on.
 * The last batch leaves on pagehide / hidden, with every waiting one, by beacon too.
 */
export class Collector {
  private queue: CollectEvent[] = [];
  private timer: ReturnType<typeof setInterval>;
  private off: (() => void)[];
  /** Called right before every flush (heartbeat: lets watched ranges close). */
  beforeFlush: () => void = () => {};

  private readonly outbox: Outbox;

  constructor(
    url: string,
    private workspaceCode: string,
    private identity: Identity,
    public videoCode: string,
    intervalMs: number,
  ) {
    this.outbox = outboxFor(url);
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
    if (this.queue.length) {
      const batch: CollectBatch = {
        workspace_code: this.workspaceCode,
        video_code: this.videoCode,
        session_id: this.identity.sessionId,
        device_id: this.identity.deviceId,
        seq: nextSeq(this.identity.sessionId),
        events: this.queue.splice(0),
      };
      this.outbox.send(batch);
    }
    if (final) this.outbox.beaconAll();
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
