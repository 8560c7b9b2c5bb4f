/**
 * What the page sends the events host, kept until the events host has it
 * (README "Production": nothing lost when the events host stumbles). Bodies go
 * out one at a time, oldest first; a failure (no network, a 5xx, a 408 or 429)
 * is retried with exponential backoff and jitter; a refusal of the body itself
 * (another 4xx) is dropped, since sending it again cannot help. The queue is kept
 * in localStorage (small and bounded), so a body still waiting when the page goes
 * is sent by the next page view of this site; at unload every waiting body also
 * leaves by `sendBeacon`. A body may so arrive twice: each carries what makes a
 * repeat harmless (a player batch its session's `seq`, a custom event its
 * `event_id`), so the events host writes it once. Never throws into the page.
 */
import { read, write } from "./storage.ts";

export interface OutboxEnvironment {
  fetch(url: string, init: RequestInit): Promise<{ ok: boolean; status: number }>;
  beacon?(url: string, body: string): boolean;
  /** The page's persistent store (localStorage), or nothing when it is refused. */
  load(key: string): string | null;
  save(key: string, value: string | null): void;
  setTimeout(run: () => void, ms: number): unknown;
  random(): number;
}

export interface Outbox {
  /** Queues a body (kept in storage at once) and sends what waits. */
  send(body: unknown): void;
  /** At unload: every waiting body leaves by beacon too (they stay queued: whether a beacon arrived is never known). */
  beaconAll(): void;
  readonly pending: number;
}

/** At most this many bodies and this many characters wait; past them the oldest goes (a page offline for long). */
export const MAX_ITEMS = 50;
export const MAX_CHARS = 256 * 1024;

/** How long the `attempts`-th retry waits: doubling from 1 s to a minute, each between half and all of it. */
export const backoffMs = (attempts: number, random: number): number => Math.round(Math.min(60_000, 1000 * 2 ** Math.max(0, attempts - 1)) * (0.5 + random / 2));

/** True when an answer means the body should be sent again later. */
export const retryable = (status: number) => status === 0 || status === 408 || status === 429 || status >= 500;

export function createOutbox(url: string, env: OutboxEnvironment): Outbox {
  const key = `fl:outbox:${url}`;
  let queue: string[] = [];
  try {
    const saved: unknown = JSON.parse(env.load(key) || "[]");
    if (Array.isArray(saved)) queue = saved.filter((b) => typeof b === "string");
  } catch {
    /* unreadable: start empty */
  }
  // Only the oldest body is ever retried, so one count of its attempts is enough.
  let attempts = 0;
  let busy = false;
  let waiting = false;
  const save = () => env.save(key, queue.length ? JSON.stringify(queue) : null);
  const pump = (): void => {
    if (busy || waiting || !queue.length) return;
    const body = queue[0]!;
    busy = true;
    const done = (status: number) => {
      busy = false;
      if (retryable(status)) {
        waiting = true;
        env.setTimeout(
          () => {
            waiting = false;
            pump();
          },
          backoffMs(++attempts, env.random()),
        );
        return;
      }
      // Taken (2xx), or refused for what it is (4xx): either way it leaves the queue.
      if (queue[0] === body) queue.shift();
      attempts = 0;
      save();
      pump();
    };
    env
      .fetch(url, {
        method: "POST",
        body,
        // text/plain: a CORS "simple" request, no preflight; the events host parses it as JSON.
        headers: { "content-type": "text/plain" },
        keepalive: body.length < 60_000,
        credentials: "omit",
      })
      .then(
        (res) => done(res.ok ? 200 : res.status),
        () => done(0),
      );
  };
  pump();
  return {
    send(body) {
      queue.push(JSON.stringify(body));
      // Past the bound the oldest waiting body goes, never the one in flight (its answer is on its way).
      while (queue.length > 1 && (queue.length > MAX_ITEMS || queue.join("").length > MAX_CHARS)) queue.splice(busy ? 1 : 0, 1);
      save();
      pump();
    },
    beaconAll() {
      for (const body of queue) env.beacon?.(url, body);
    },
    get pending() {
      return queue.length;
    },
  };
}

/** The page's real environment: fetch, sendBeacon, localStorage (never throwing), timers. */
export const pageEnvironment = (): OutboxEnvironment => ({
  fetch: (url, init) => fetch(url, init),
  beacon: (url, body) => navigator.sendBeacon?.(url, body) ?? false,
  load: (key) => read("localStorage", key),
  save: (key, value) => write("localStorage", key, value),
  setTimeout: (run, ms) => setTimeout(run, ms),
  random: Math.random,
});

/** One outbox per events URL and page, shared by every bundle on it (each has its own copy of this module). */
export function outboxFor(url: string): Outbox {
  const page = window as unknown as Record<symbol, Record<string, Outbox> | undefined>;
  const all = (page[Symbol.for("frameline.outboxes")] ??= {});
  let outbox = all[url];
  if (!outbox) {
    const created = (outbox = all[url] = createOutbox(url, pageEnvironment()));
    addEventListener("pagehide", () => created.beaconAll());
  }
  return outbox;
}
