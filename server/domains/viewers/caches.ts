/** The per-process caches of known viewers (`deps.viewers`): only caches, Postgres is the truth. */
import { TtlCache } from "../../lib/ttl-cache.ts";
import { SingleFlight } from "../../lib/single-flight.ts";
import type { SessionRow } from "./repo.ts";

/** This process's known viewers, and the lookups and writes in flight (a burst is one statement). */
export class ViewerCaches {
  readonly workspaces: TtlCache<number>;
  readonly videos: TtlCache<{ id: number; code: string } | null>;
  readonly sessions: TtlCache<SessionRow | null>;
  readonly keys: TtlCache<number>;
  readonly lookups = new SingleFlight<unknown>();
  readonly writes = new SingleFlight<unknown>();

  constructor(now: () => number) {
    this.workspaces = new TtlCache(10_000, now);
    this.videos = new TtlCache(50_000, now);
    this.sessions = new TtlCache(200_000, now);
    this.keys = new TtlCache(200_000, now);
  }
}
