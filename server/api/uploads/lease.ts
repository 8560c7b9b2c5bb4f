/**
 * One writer per upload session at a time. The lease is a row value (token and
 * expiry), not a held lock: no connection or transaction stays open while a
 * chunk streams in, and any process can take over from one that died. A second
 * request waits (bounded) for the first, then sees its offset: a retry whose
 * first try is still streaming becomes "behind" (200 with the offset, nothing written).
 *
 * A chunk's write gives the lease back in the statement that records its bytes,
 * so the client's next chunk proceeds at once on whichever process it reaches
 * (behind a load balancer, the next one often reaches another).
 */
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import * as repo from "./repo.ts";
import type { UploadSessionRow } from "./repo.ts";
import { isLive } from "./session.ts";

export interface Lease {
  readonly token: string;
  /** False once a write gave it back in the same statement that recorded its bytes. */
  held: boolean;
  /** Aborted when the lease could not be renewed: another request may be writing. */
  readonly lost: AbortSignal;
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
  { timing = LEASE_TIMING }: { timing?: LeaseTiming } = {},
): Promise<T> {
  const token: string = crypto.randomUUID();
  const take = () => repo.leaseSession(deps.sql, workspaceId, id, token, timing.seconds);
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
  const lease: Lease = { token, held: true, lost: lost.signal };
  const renew = setInterval(
    async () => {
      if (!lease.held) return;
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
    if (lease.held) await repo.releaseLease(deps.sql, id, lease.token).catch(() => {});
  }
}
