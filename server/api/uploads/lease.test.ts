/** The lease against the real database (PGlite or PostgreSQL), as the upload routes use it. */
import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, type TestApp, type TestWorkspace } from "../../../test/helpers/app.ts";
import { ApiError } from "../../errors.ts";
import { type LeaseTiming, withLease } from "./lease.ts";
import * as repo from "./repo.ts";

let t: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
const fast: LeaseTiming = { seconds: 60, waitMs: 5_000, pollMs: 10 };

beforeAll(async () => {
  t = await testApp({ config: { limits: { readsPerMinute: 100_000, writesPerMinute: 100_000 } } });
  [ws, other] = await Promise.all([t.workspace(), t.workspace()]);
}, 60_000);

async function newSession(size = 1000): Promise<string> {
  const video = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "Lease" } });
  const init = await t.call("POST", `/api/v1/videos/${video.body.video.id}/upload/init`, {
    token: ws.token,
    body: { filename: "a.mp4", size, mime_type: "video/mp4" },
  });
  return init.body.upload_id;
}

const lockOf = async (id: string) => (await t.deps.sql`SELECT lock_token FROM upload_sessions WHERE id = ${id}`)[0]!.lock_token as string | null;
const codeOf = (error: unknown) => ((error as ApiError).body as { error: { code: string; offset?: number } }).error;

describe("withLease", () => {
  test("one holder at a time: a second request waits, then sees the offset the first recorded", async () => {
    const id = await newSession();
    const order: string[] = [];
    const first = withLease(
      t.deps,
      ws.id,
      id,
      async (row, lease) => {
        order.push("first");
        await Bun.sleep(200);
        expect(await repo.saveProgress(t.deps.sql, id, lease.token, { offset: 400, parts: [] })).toBe(true);
        lease.held = false;
        return row.offset;
      },
      { timing: fast },
    );
    await Bun.sleep(20);
    const second = withLease(t.deps, ws.id, id, async (row) => (order.push("second"), row.offset), { timing: fast });
    expect(await Promise.all([first, second])).toEqual([0, 400]);
    expect(order).toEqual(["first", "second"]);
    expect(await lockOf(id)).toBeNull();
  });

  test("a waiter gives up after waitMs: 409 OFFSET_MISMATCH with the real offset", async () => {
    const id = await newSession();
    const holder = withLease(t.deps, ws.id, id, () => Bun.sleep(400), { timing: fast });
    await Bun.sleep(20);
    const waiter = withLease(t.deps, ws.id, id, async () => "ran", { timing: { ...fast, waitMs: 100 } });
    const error = await waiter.catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(409);
    expect(codeOf(error)).toMatchObject({ code: "OFFSET_MISMATCH", offset: 0 });
    await holder;
  });

  test("the lease is given back when the holder fails", async () => {
    const id = await newSession();
    await expect(
      withLease(t.deps, ws.id, id, async () => {
        throw new Error("disk full");
      }),
    ).rejects.toThrow("disk full");
    expect(await lockOf(id)).toBeNull();
  });

  test("renewed while the holder runs; a lease another request took over aborts `lost`", async () => {
    const id = await newSession();
    const short: LeaseTiming = { seconds: 1, waitMs: 0, pollMs: 10 };
    let lostAt = -1;
    const holder = withLease(
      t.deps,
      ws.id,
      id,
      async (_row, lease) => {
        // Past the 1 s lease: still held, because it is renewed.
        await Bun.sleep(1300);
        expect(lease.lost.aborted).toBe(false);
        await expect(withLease(t.deps, ws.id, id, async () => "ran", { timing: short })).rejects.toBeInstanceOf(ApiError);
        await t.deps.sql`UPDATE upload_sessions SET lock_token = 'someone-else' WHERE id = ${id}`;
        const start = Date.now();
        while (!lease.lost.aborted && Date.now() - start < 2000) await Bun.sleep(20);
        lostAt = Date.now() - start;
      },
      { timing: short },
    );
    await holder;
    expect(lostAt).toBeGreaterThanOrEqual(0);
    expect(lostAt).toBeLessThan(1000);
  });

  test("a chunk's write gives the lease back with its bytes: the next chunk proceeds at once on any process", async () => {
    const id = await newSession();
    const write = (offset: number) =>
      withLease(
        t.deps,
        ws.id,
        id,
        async (row, lease) => {
          expect(await repo.saveProgress(t.deps.sql, id, lease.token, { offset, parts: [] })).toBe(true);
          lease.held = false;
          return row.offset;
        },
        { timing: fast },
      );
    expect(await write(100)).toBe(0);
    expect(await lockOf(id)).toBeNull();
    // Another app behind the load balancer: a second app over the same database takes it with no wait.
    const elsewhere = await testApp({ sql: t.deps.sql });
    const started = performance.now();
    const seen = await withLease(elsewhere.deps, ws.id, id, async (row) => row.offset, { timing: fast });
    expect(seen).toBe(100);
    expect(performance.now() - started).toBeLessThan(500);
  });

  test("missing, another workspace's or expired: 404 UPLOAD_NOT_FOUND, and nothing runs", async () => {
    const id = await newSession();
    let ran = false;
    const run = async () => void (ran = true);
    for (const [workspace, upload] of [
      [ws.id, "flup_0123456789abcdef0123456789abcdef"],
      [other.id, id],
    ] as const) {
      const error = await withLease(t.deps, workspace, upload, run, { timing: fast }).catch((e) => e);
      expect(codeOf(error).code).toBe("UPLOAD_NOT_FOUND");
    }
    await t.deps.sql`UPDATE upload_sessions SET expires_at = now() - interval '1 second' WHERE id = ${id}`;
    expect(codeOf(await withLease(t.deps, ws.id, id, run, { timing: fast }).catch((e) => e)).code).toBe("UPLOAD_NOT_FOUND");
    expect(ran).toBe(false);
  });
});
