/**
 * One writer per upload session at a time. The lease is a row value (token and
 * expiry), not a held lock: no connection or transaction stays open while a
 * chunk streams in, and any process can take over from one that died. A second
 * request waits (bounded) for the first, then sees its offset: a retry whose
 * first try is still streaming becomes "behind" (200 with the offset, nothing written).
 *
 * A chunk's write may keep its lease for a moment (`KEEP_SECONDS`) instead of
 * giving it back: the same client's next chunk, sent right after the answer to
 * the same process (the common case), takes it back from `KeptLeases` without a
 * statement. Another process waits at most that moment for it to lapse.
 */
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import * as repo from "./repo.ts";
import type { UploadSessionRow } from "./repo.ts";
import { isLive } from "./session.ts";

/** How long a chunk's write keeps the lease after its answer; well within another request's `waitMs`. */
export const KEEP_SECONDS = 2;

export interface Lease {
  readonly token: string;
  /** False once a write gave it back in the same statement that recorded its bytes. */
  held: boolean;
  /** Aborted when the lease could not be renewed: another request may be writing. */
  readonly lost: AbortSignal;
  /**
   * The write recorded its bytes keeping the lease for KEEP_SECONDS (its statement
   * was sent at `since`, a `performance.now()` time): the row as it now stands.
   */
  keep(row: UploadSessionRow, since: number): void;
}

interface Kept {
  token: string;
  row: UploadSessionRow;
  /** `performance.now()` time after which the lease may have lapsed in the database. */
  until: number;
}

/** Leases this process kept after a chunk, by upload id. Only a cache: a lapsed one is never used. */
export class KeptLeases {
  private readonly kept = new Map<string, Kept>();

  /** Takes a kept lease back (once), if it is this workspace's and surely still held. */
  take(workspaceId: number, id: string): Kept | undefined {
    const kept = this.kept.get(id);
    if (!kept || kept.row.workspace_id !== workspaceId) return undefined;
    this.kept.delete(id);
    return performance.now() < kept.until ? kept : undefined;
  }

  put(kept: Kept): void {
    // Uploads that stopped leave entries behind: clear the lapsed ones now and then.
    if (this.kept.size >= 1000) for (const [id, k] of this.kept) if (performance.now() >= k.until) this.kept.delete(id);
    this.kept.set(kept.row.id, kept);
  }

  forget(id: string): void {
    this.kept.delete(id);
  }
}

export interface LeaseTiming {
  /** How long a lease lasts unless renewed; renewed every third of it while the holder runs. */
  seconds: number;
  /** How long a request waits for another one writing to the same session. */
  waitMs: number;
  pollMs: number;
}

export const LEASE_TIMING: LeaseTiming = { seconds: 60, waitMs: 10_000, pollMs: 25 };

/**
 * Runs `run` holding the session's lease, with the row as it was when the lease
 * was taken (one statement takes the lease and reads the row). Missing, closed,
 * expired or another workspace's: UPLOAD_NOT_FOUND.
 */
export async function withLease<T>(
  deps: Pick<Deps, "sql" | "clock">,
  workspaceId: number,
  id: string,
  run: (row: UploadSessionRow, lease: Lease) => Promise<T>,
  { kept, timing = LEASE_TIMING }: { kept?: KeptLeases; timing?: LeaseTiming } = {},
): Promise<T> {
  let token: string = crypto.randomUUID();
  const take = async (): Promise<UploadSessionRow | undefined> => {
    const back = kept?.take(workspaceId, id);
    if (back) return ((token = back.token), back.row);
    return repo.leaseSession(deps.sql, workspaceId, id, token, timing.seconds);
  };
  const deadline = Date.now() + timing.waitMs;
  let row = await take();
  while (!row) {
    const current = await repo.findSession(deps.sql, workspaceId, id);
    if (!current || !isLive(current, deps.clock.now())) throw Errors.uploadNotFound();
    if (Date.now() >= deadline) throw Errors.offsetMismatch(current.offset, `Another request is writing to this upload; retry from offset ${current.offset}.`);
    await Bun.sleep(timing.pollMs);
    row = await take();
  }
  const lost = new AbortController();
  let keeping: Kept | undefined;
  const lease: Lease = {
    token,
    held: true,
    lost: lost.signal,
    keep: (now, since) => void (keeping = { token, row: now, until: since + KEEP_SECONDS * 750 }),
  };
  const renew = setInterval(
    async () => {
      if (!lease.held || keeping) return;
      const renewed = await repo.renewLease(deps.sql, id, lease.token, timing.seconds).catch(() => false);
      if (!renewed) lost.abort(new Error("the upload's lease was lost"));
    },
    (timing.seconds * 1000) / 3,
  );
  try {
    if (!isLive(row, deps.clock.now())) throw Errors.uploadNotFound();
    return await run(row, lease);
  } finally {
    clearInterval(renew);
    if (keeping) kept?.put(keeping);
    else if (lease.held) await repo.releaseLease(deps.sql, id, lease.token).catch(() => {});
  }
}
