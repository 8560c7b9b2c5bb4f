/** Per-process state of the custom-events path (`deps.customEvents`): caches and writes in flight. */
import type { Sql } from "../../storage/postgres.ts";
import { SingleFlight } from "../../lib/single-flight.ts";
import { Group } from "../../lib/group.ts";
import type { CustomEventReply } from "./model.ts";
import * as repo from "./repo.ts";

export type ClaimResult = { claimed: true } | { claimed: false; prior: repo.DedupRow };

export interface Recorded {
  status: 200 | 202;
  body: CustomEventReply;
  deduplicated: boolean;
}

/** This process's custom-event state (`deps.customEvents`, built by createDeps). */
export class CustomEventState {
  /** Names known to be registered, per workspace (the cap itself is enforced in Postgres). */
  readonly names = new Map<number, Set<string>>();
  /** One name registration per workspace at a time: a burst of a new name is one transaction. */
  readonly nameFlights = new SingleFlight<void>();
  /** Writes in flight by `<workspace>:<event_id>`: a repeat in this process waits for the first's answer. */
  readonly inFlight = new Map<string, Promise<Recorded>>();
  /** event_id claims go to Postgres in groups: one statement per few milliseconds, not one per event. */
  readonly claims: Group<repo.ClaimItem, ClaimResult>;

  constructor(sql: Sql) {
    this.claims = new Group((items) => repo.claimEventIds(sql, items));
  }
}
