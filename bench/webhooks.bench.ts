/**
 * A burst of 10,000 lifecycle events for one subscription, delivered by the
 * real deliverer (fan-out, SKIP LOCKED claims, signing, bookkeeping) to a local
 * receiver that dedups by `webhook-id`; against a bare loop of fetch POSTs of
 * the same bodies to the same receiver at the same concurrency.
 * Must show lost = 0 and duplicates = 0. Stops by itself (hard limit 110 s).
 *
 * Embedded PGlite by default; DATABASE_URL runs it on a fresh database of that server.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { loadConfig } from "../server/config.ts";
import { createLog } from "../server/log.ts";
import { Metrics } from "../server/http/metrics.ts";
import type { Deps } from "../server/deps.ts";
import { connectPostgres, migrate } from "../server/storage/postgres.ts";
import { startEmbeddedPostgres } from "../server/storage/pglite.ts";
import { serializeEnvelope } from "../server/api/webhooks/send.ts";
import { WebhookDeliverer } from "../server/workers/webhook-deliverer.ts";
import { startReceiver } from "../test/helpers/receiver.ts";
import { report } from "./lib/report.ts";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const HARD_LIMIT_MS = 110_000;

const killer = setTimeout(() => {
  console.error(`webhooks bench: still running after ${HARD_LIMIT_MS / 1000} s, giving up`);
  process.exit(2);
}, HARD_LIMIT_MS);

const cleanups: (() => Promise<void>)[] = [];
async function database(): Promise<{ url: string; mode: string }> {
  const admin = process.env.DATABASE_URL;
  if (admin) {
    const name = `frameline_bench_test_${Date.now().toString(36)}`;
    const a = postgres(admin, { max: 1, onnotice: () => {} });
    await a.unsafe(`CREATE DATABASE ${name}`);
    await a.end();
    cleanups.push(async () => {
      const b = postgres(admin, { max: 1, onnotice: () => {} });
      await b.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await b.end();
    });
    const url = new URL(admin);
    url.pathname = `/${name}`;
    return { url: url.toString(), mode: "PostgreSQL server" };
  }
  const dir = await mkdtemp(join(tmpdir(), "frameline-bench-"));
  const pg = await startEmbeddedPostgres(dir);
  cleanups.push(async () => {
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  });
  return { url: pg.url, mode: "embedded PGlite" };
}

const rx = startReceiver({ record: false });
cleanups.push(() => rx.stop());
const db = await database();
const sql = connectPostgres(db.url, { max: 10 });
cleanups.unshift(() => sql.end({ timeout: 5 }));

try {
  await migrate(sql);
  const [ws] = await sql`INSERT INTO workspaces (code, name, legacy_key_hash) VALUES (${crypto.randomUUID()}, 'bench', ${"0".repeat(64)}) RETURNING id`;
  const workspaceId = ws!.id as number;
  const secret = "bench-secret-0123456789abcdef";
  await sql`INSERT INTO webhook_subscriptions (workspace_id, name, url, events, secret) VALUES (${workspaceId}, 'bench', ${`${rx.url}/hook`}, ${sql.array(["video.created"])}, ${secret})`;

  // The burst: 10,000 outbox rows, as the videos module writes them.
  const t0 = performance.now();
  await sql`
    INSERT INTO outbox (event_id, workspace_id, event, data)
    SELECT gen_random_uuid(), ${workspaceId}, 'video.created',
           jsonb_build_object('video', jsonb_build_object('id', i, 'code', gen_random_uuid(), 'title', 'Burst video ' || i))
    FROM generate_series(1, ${EVENTS}) AS i`;
  const enqueueMs = performance.now() - t0;

  const config = { ...loadConfig({ LOG_LEVEL: "warn" }), webhookAllowPrivate: true };
  const deps = { config, sql, clock: { now: () => Date.now() }, log: createLog("warn"), metrics: new Metrics() } as unknown as Deps;
  const deliverer = new WebhookDeliverer(deps, { concurrency: CONCURRENCY });
  const t1 = performance.now();
  const result = await deliverer.runUntilIdle();
  const deliverMs = performance.now() - t1;
  const [states] =
    await sql`SELECT count(*) FILTER (WHERE state = 'delivered')::int AS delivered, count(*) FILTER (WHERE state <> 'delivered')::int AS other FROM webhook_deliveries`;
  const received = rx.ids.size;
  const duplicates = rx.duplicates();
  const lost = EVENTS - received;

  // Baseline: the same bodies, POSTed by a bare fetch loop at the same concurrency.
  const rows = await sql<{ event_id: string; workspace_id: number; event: string; data: Record<string, unknown>; created_at: Date }[]>`
    SELECT event_id, workspace_id, event, data, created_at FROM outbox ORDER BY id`;
  const bodies = rows.map((r) =>
    serializeEnvelope({ id: r.event_id, event: r.event, workspace_id: r.workspace_id, created_at: r.created_at.toISOString(), data: r.data }),
  );
  rx.reset();
  let next = 0;
  const t2 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const i = next++;
        const res = await fetch(`${rx.url}/hook`, {
          method: "POST",
          headers: { "Content-Type": "application/json", "webhook-id": rows[i]!.event_id },
          body: bodies[i],
        });
        await res.arrayBuffer();
      }
    }),
  );
  const bareMs = performance.now() - t2;

  const ours = EVENTS / (deliverMs / 1000);
  const bare = EVENTS / (bareMs / 1000);
  await report(
    "webhooks",
    `10,000-event burst to one subscription (${db.mode}), local receiver deduping by webhook-id, concurrency ${CONCURRENCY}`,
    [
      {
        path: "Frameline deliverer (fan-out, claim, sign, POST, record)",
        events: EVENTS,
        seconds: deliverMs / 1000,
        "deliveries/s": Math.round(ours),
        duplicates,
        lost,
      },
      {
        path: "bare fetch loop, same bodies",
        events: EVENTS,
        seconds: bareMs / 1000,
        "deliveries/s": Math.round(bare),
        duplicates: rx.duplicates(),
        lost: EVENTS - rx.ids.size,
      },
      { path: "ratio (ours / bare)", events: "", seconds: "", "deliveries/s": `${(ours / bare).toFixed(2)}x`, duplicates: "", lost: "" },
    ],
    {
      mode: db.mode,
      concurrency: CONCURRENCY,
      enqueue_ms: Math.round(enqueueMs),
      deliverer: result,
      delivery_rows: states,
      deliveries_per_second: Math.round(ours),
      baseline_per_second: Math.round(bare),
      ratio: Number((ours / bare).toFixed(3)),
      duplicates,
      lost,
    },
  );
  if (lost !== 0 || duplicates !== 0 || states!.other !== 0) {
    console.error("webhooks bench: events were lost or duplicated");
    process.exitCode = 1;
  }
} finally {
  for (const cleanup of cleanups) await cleanup().catch(() => {});
  clearTimeout(killer);
}
