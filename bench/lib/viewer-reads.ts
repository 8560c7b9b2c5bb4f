/**
 * Reads of one viewer (docs/api.md "Viewers") over the analytics bench's events: the
 * events stay where analytics.bench.ts generated them (ClickHouse), and an embedded
 * PostgreSQL gets the identity side at the same scale: 70,000 viewers (one per device
 * of the generator) and every one of its sessions, with the videos each played. One
 * viewer, a device that came back twice to the hot video, is read through the service
 * (its timeline and its heatmap) and as the same SQL on the engines: the viewer's
 * sessions in PostgreSQL, then their events in ClickHouse.
 */
import { join } from "node:path";
import type { Session } from "chdb";
import type { Deps } from "../../server/deps.ts";
import { heatmap, timeline } from "../../server/api/viewers/service.ts";
import { sessionsScope, timelineSql } from "../../server/domains/viewers/events.ts";
import { sessionsOf } from "../../server/domains/viewers/repo.ts";
import type { Ch } from "../../server/storage/clickhouse.ts";
import { connectPostgres, migrate } from "../../server/storage/postgres.ts";
import { startEmbeddedPostgres } from "../../server/storage/pglite.ts";
import { RowCache } from "../../server/storage/row-cache.ts";

const DEVICES = 70_000;

type Timed = { p50: number; p95: number };

export async function viewerReads(opts: {
  dir: string;
  ch: Ch;
  native: Session;
  workspaceId: number;
  sessions: number;
  hotEvents: number;
  videos: number;
  from: string;
  time: (run: () => Promise<unknown>) => Promise<Timed>;
}): Promise<{ label: string; ours: Timed; engine: Timed; answer: string }[]> {
  const { ch, native, workspaceId: ws } = opts;
  const pg = await startEmbeddedPostgres(join(opts.dir, "postgres"));
  const sql = connectPostgres(pg.url);
  try {
    await migrate(sql);
    await sql`INSERT INTO workspaces (id, code, name, legacy_key_hash) VALUES (${ws}, gen_random_uuid(), 'bench', md5('a') || md5('b'))`;
    await sql`INSERT INTO videos (id, workspace_id, code, title) SELECT v, ${ws}, gen_random_uuid(), 'video-' || v FROM generate_series(1, ${opts.videos}) AS v`;
    await sql`INSERT INTO viewers (id, workspace_id) SELECT d + 1, ${ws} FROM generate_series(0, ${DEVICES - 1}) AS d`;
    // The viewer read: device `k`, whose sessions k and k + 70,000 played the hot video (the first only, on a small data set).
    const k = 12_345 % Math.max(1, Math.min(DEVICES, opts.hotEvents / 10));
    const real = await (
      await ch.query({
        query: `
SELECT lower(hex(cityHash64(s, 'session'))) AS code, if(s * 10 < {hot:UInt64}, 1, 2 + cityHash64(s, 'video') % ({videos:UInt64} - 1)) AS video,
  toString(toDateTime64({from:String}, 3, 'UTC') + toIntervalSecond(cityHash64(s) % (30 * 86400))) AS start
FROM (SELECT number AS s FROM numbers({sessions:UInt64})) WHERE s % {devices:UInt64} = {k:UInt64}`,
        query_params: { hot: opts.hotEvents, videos: opts.videos, from: `${opts.from} 00:00:00`, sessions: opts.sessions, devices: DEVICES, k },
        format: "JSONEachRow",
      })
    ).json<{ code: string; video: string; start: string }>();
    // Every other session stands in by a code of its own, at the same scale.
    await sql`
      INSERT INTO viewer_sessions (workspace_id, session_code, viewer_id, device_id, video_id, created_at)
      SELECT ${ws}, md5(s::text), s % ${DEVICES} + 1, 'd' || (s % ${DEVICES}), 1 + s % ${opts.videos}, ${opts.from}::timestamptz + (s % 2592000) * interval '1 second'
      FROM generate_series(0, ${opts.sessions - 1}) AS s WHERE s % ${DEVICES} != ${k}`;
    for (const r of real)
      await sql`
        INSERT INTO viewer_sessions (workspace_id, session_code, viewer_id, device_id, video_id, created_at)
        VALUES (${ws}, ${r.code}, ${k + 1}, ${`d${k}`}, ${Number(r.video)}, ${`${r.start}Z`})`;
    await sql`INSERT INTO session_videos (workspace_id, video_id, session_code, created_at) SELECT workspace_id, video_id, session_code, created_at FROM viewer_sessions`;
    await sql`ANALYZE`;

    const deps = { ch, sql, videoCache: new RowCache<unknown>(60_000), clock: { now: () => Date.now() }, config: {} } as unknown as Deps;
    const viewerId = k + 1;
    const direct = async () => {
      const sessions = await sessionsOf(sql, ws, 1, [viewerId]);
      const scope = sessionsScope(ws, 1, sessions);
      const q = timelineSql(scope);
      await native.queryBindAsync(q.query, q.query_params, { format: "JSONEachRow" });
    };
    const shown = await timeline(deps, ws, 1, viewerId);
    const map = await heatmap(deps, ws, 1, viewerId, { buckets: "100" });
    return [
      {
        label: `one viewer's timeline (${shown.sessions.length} sessions of the hot video)`,
        ours: await opts.time(() => timeline(deps, ws, 1, viewerId)),
        engine: await opts.time(direct),
        answer: `${shown.sessions.length} sessions, ${shown.sessions.reduce((n, s) => n + s.events.length, 0)} events, furthest ${shown.viewer.furthest_percent} %`,
      },
      {
        label: "one viewer's heatmap (100 buckets)",
        ours: await opts.time(() => heatmap(deps, ws, 1, viewerId, { buckets: "100" })),
        engine: await opts.time(direct),
        answer: `counts ${map.counts.join(",")}`,
      },
    ];
  } finally {
    await sql.end();
    await pg.stop();
  }
}
