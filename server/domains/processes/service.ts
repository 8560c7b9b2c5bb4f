/**
 * The registry of a deployment's processes: each registers at start (refusing a
 * configuration that would split the truth, topology.ts), touches its row while
 * it runs and removes it when it stops. Registration runs under an advisory lock,
 * so two processes starting together are compared with each other too.
 */
import { hostname } from "node:os";
import type { Config } from "../../config.ts";
import type { Log } from "../../log.ts";
import type { Sql } from "../../storage/postgres.ts";
import * as repo from "./repo.ts";
import { type Engines, type ProcessInfo, type Role, splitTruth } from "./topology.ts";
import pkg from "../../../package.json" with { type: "json" };

const REGISTRY_LOCK = 7_240_318_003;
const TOUCH_EVERY_MS = 10_000;

/** A configuration that would split the truth: main.ts and worker.ts print the sentence and exit. */
export class TopologyError extends Error {}

/** A connection string's place without its credentials or query. */
function place(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(unparsable URL)";
  }
}

export function enginesOf(config: Config, host = hostname()): Engines {
  const s3 = config.s3;
  return {
    postgres: config.databaseUrl ? "server" : "embedded",
    // The cluster is part of it: a process running the one-node schema beside a cluster would split it.
    clickhouse: config.clickhouseUrl
      ? `server ${place(config.clickhouseUrl)}${config.clickhouseCluster ? ` cluster ${config.clickhouseCluster}` : ""}`
      : `embedded ${host}:${config.dataDir}/clickhouse`,
    media: s3 ? `s3 ${s3.endpoint ? place(s3.endpoint).replace(/\/$/, "") : `aws ${s3.region}`}/${s3.bucket}` : `fs ${host}:${config.dataDir}/media`,
  };
}

/** A row of this machine whose process is gone (killed before it could remove its row). */
function deadHere(row: repo.ProcessRow, host: string): boolean {
  if (row.host !== host) return false;
  try {
    process.kill(row.pid, 0);
    return false;
  } catch (error) {
    // EPERM: the pid exists but belongs to someone else: alive.
    return (error as { code?: unknown }).code === "ESRCH";
  }
}

export interface Registration {
  id: string;
  /** Removes this process's row (a clean stop). */
  stop(): Promise<void>;
}

export async function registerProcess(deps: { sql: Sql; config: Config; log: Log }, role: Role): Promise<Registration> {
  const { sql, config, log } = deps;
  const host = hostname();
  const me: ProcessInfo = { id: crypto.randomUUID(), role, host, engines: enginesOf(config, host), public_url: config.publicUrlSet ? config.publicUrl : null };
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${REGISTRY_LOCK})`;
    const txSql = tx as unknown as Sql;
    await repo.deleteGone(txSql);
    const live = await repo.liveProcesses(txSql);
    const dead = live.filter((row) => deadHere(row, host));
    await repo.deleteProcesses(
      txSql,
      dead.map((row) => row.id),
    );
    const reason = splitTruth(
      me,
      live.filter((row) => !dead.includes(row)),
    );
    if (reason) throw new TopologyError(reason);
    await repo.insertProcess(txSql, { ...me, pid: process.pid, version: pkg.version });
  });
  const timer = setInterval(() => {
    repo.touchProcess(sql, me.id).catch((error) => log.warn("process registry: touch failed", { error: String(error) }));
  }, TOUCH_EVERY_MS);
  timer.unref?.();
  return {
    id: me.id,
    async stop() {
      clearInterval(timer);
      await repo.deleteProcesses(sql, [me.id]).catch(() => {});
    },
  };
}

export const listProcesses = (sql: Sql) => repo.liveProcesses(sql);
