/**
 * Which configurations would split the truth between processes that share one
 * PostgreSQL (README "Running on several machines"). Pure: the registry hands in
 * this process and the other live ones; an answer is one line saying what is
 * wrong and what to set, and the process refuses to start with it.
 */

export type Role = "app" | "worker";

/** Where a process keeps each engine, as a comparable name without credentials. */
export interface Engines {
  /** "server" (DATABASE_URL) or "embedded" (PGlite, one process by construction). */
  postgres: string;
  /** `server <url>` or `embedded <host>:<path>`. */
  clickhouse: string;
  /** `s3 <endpoint>/<bucket>` or `fs <host>:<path>`. */
  media: string;
}

export interface ProcessInfo {
  id: string;
  role: Role;
  host: string;
  engines: Engines;
  /** PUBLIC_URL as set; null when the process made one up from HOST and PORT. */
  public_url: string | null;
}

const isEmbedded = (name: string) => name.startsWith("embedded ");
const isFs = (name: string) => name.startsWith("fs ");

/** The reason to refuse `me` beside `others` (live processes on the same database), or undefined. */
export function splitTruth(me: ProcessInfo, others: readonly ProcessInfo[]): string | undefined {
  if (me.engines.postgres === "embedded") return undefined;
  const peers = others.filter((o) => o.id !== me.id);
  if (me.role === "worker" && isEmbedded(me.engines.clickhouse))
    return "A worker needs the shared ClickHouse: set CLICKHOUSE_URL to the ClickHouse server the apps use (an embedded chDB is one process's alone).";
  if (me.role === "worker" && isFs(me.engines.media))
    return "A worker needs the shared media store: set S3_BUCKET and the other S3_* settings the apps use (the filesystem store is one machine's disk).";
  if (peers.length === 0) return undefined;
  const list = (names: string[]) => [...new Set(names)].join(", ");
  if (isEmbedded(me.engines.clickhouse))
    return `${peers.length} other process(es) share this database, but this one would keep events in its own embedded chDB: set CLICKHOUSE_URL to the ClickHouse server they use (${list(peers.map((p) => p.engines.clickhouse))}).`;
  const otherClickHouse = peers.filter((p) => p.engines.clickhouse !== me.engines.clickhouse);
  if (otherClickHouse.length)
    return `This process uses ClickHouse ${me.engines.clickhouse}, but other processes on this database use ${list(otherClickHouse.map((p) => p.engines.clickhouse))}: set the same CLICKHOUSE_URL (and CLICKHOUSE_CLUSTER) on every process.`;
  if (isFs(me.engines.media))
    return `${peers.length} other process(es) share this database, but this one keeps media on its own disk (${me.engines.media.slice(3)}): set S3_BUCKET and the other S3_* settings so every process reads and writes the same media.`;
  const otherMedia = peers.filter((p) => p.engines.media !== me.engines.media);
  if (otherMedia.length)
    return `This process keeps media in ${me.engines.media}, but other processes on this database use ${list(otherMedia.map((p) => p.engines.media))}: set the same S3_* settings on every process.`;
  if (me.role === "app") {
    if (me.public_url === null)
      return "Several processes share this database: set PUBLIC_URL to the address clients and viewers reach (the load balancer's), the same on every app.";
    const otherUrls = peers.filter((p) => p.role === "app" && p.public_url !== null && p.public_url !== me.public_url);
    if (otherUrls.length)
      return `PUBLIC_URL is ${me.public_url} here but ${list(otherUrls.map((p) => p.public_url!))} on other apps: set the same PUBLIC_URL on every app.`;
  }
  return undefined;
}
