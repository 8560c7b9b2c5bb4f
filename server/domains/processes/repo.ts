import { json, type Sql } from "../../storage/postgres.ts";
import type { Engines, Role } from "./topology.ts";

export interface ProcessRow {
  id: string;
  role: Role;
  host: string;
  pid: number;
  version: string;
  engines: Engines;
  public_url: string | null;
  started_at: Date;
  last_seen: Date;
}

/** A process whose row has not been touched this long is gone (it touches it every few seconds). */
export const LIVE_WITHIN_S = 30;

export async function liveProcesses(sql: Sql): Promise<ProcessRow[]> {
  return sql<ProcessRow[]>`SELECT * FROM processes WHERE last_seen > now() - make_interval(secs => ${LIVE_WITHIN_S}) ORDER BY started_at, id`;
}

export async function insertProcess(sql: Sql, p: Omit<ProcessRow, "started_at" | "last_seen">): Promise<void> {
  await sql`
    INSERT INTO processes (id, role, host, pid, version, engines, public_url)
    VALUES (${p.id}, ${p.role}, ${p.host}, ${p.pid}, ${p.version}, ${json(sql, p.engines)}, ${p.public_url})`;
}

export async function touchProcess(sql: Sql, id: string): Promise<void> {
  await sql`UPDATE processes SET last_seen = now() WHERE id = ${id}`;
}

export async function deleteProcesses(sql: Sql, ids: string[]): Promise<void> {
  if (ids.length) await sql`DELETE FROM processes WHERE id IN ${sql(ids)}`;
}

/** Rows long gone are dropped by whoever registers next. */
export async function deleteGone(sql: Sql): Promise<void> {
  await sql`DELETE FROM processes WHERE last_seen < now() - interval '1 day'`;
}
