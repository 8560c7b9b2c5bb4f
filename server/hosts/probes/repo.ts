/**
 * The one read `/metrics` makes of the job tables at each scrape: narrow counts of
 * other folders' tables (docs/architecture.md "Layout", import rules), each on a
 * partial index of the rows still waiting, so its cost follows the backlog, not history.
 */
import type { Db } from "../../storage/postgres.ts";

export interface Backlog {
  jobs: { kind: string; queued: number; running: number }[];
  webhooks: { outbox: number; deliveries: number };
}

export async function readBacklog(sql: Db): Promise<Backlog> {
  const [row] = await sql<
    { encode_queued: number; encode_running: number; export_queued: number; export_running: number; outbox: number; deliveries: number }[]
  >`
    SELECT (SELECT count(*) FROM encode_jobs WHERE state = 'queued')::int AS encode_queued,
           (SELECT count(*) FROM encode_jobs WHERE state = 'running')::int AS encode_running,
           (SELECT count(*) FROM exports WHERE status = 'pending')::int AS export_queued,
           (SELECT count(*) FROM exports WHERE status = 'processing')::int AS export_running,
           (SELECT count(*) FROM outbox WHERE dispatched_at IS NULL)::int AS outbox,
           (SELECT count(*) FROM webhook_deliveries WHERE state = 'pending')::int AS deliveries`;
  const r = row!;
  return {
    jobs: [
      { kind: "encode", queued: r.encode_queued, running: r.encode_running },
      { kind: "export", queued: r.export_queued, running: r.export_running },
    ],
    webhooks: { outbox: r.outbox, deliveries: r.deliveries },
  };
}
