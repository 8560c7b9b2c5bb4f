/**
 * The ClickHouse schema on a cluster (README "Production", CLICKHOUSE_CLUSTER): the one
 * function that turns a migration statement written for one node into what a cluster
 * runs, laid out as PostHog lays out its sharded tables. Without a cluster every
 * statement comes back unchanged, so one set of migration files serves both.
 *
 * On a cluster:
 * - every DDL statement runs `ON CLUSTER '<cluster>'`, so every node gets it;
 * - a data table `<t>` is made as `<t>_local`, a `Replicated*MergeTree` at
 *   `/clickhouse/tables/{shard}/{database}/<t>_local` with replica `{replica}`, and a
 *   `Distributed` table keeps the name `<t>` in front of it: the app's reads and writes
 *   (and the backfills) use the names they always did, and reach every shard;
 * - a `Null` table is made the same way (`<t>_local` Null behind a Distributed `<t>`), so
 *   a batch is split by session and each shard's views see only that shard's rows;
 * - materialized views read and write the local tables, so each shard aggregates its own
 *   rows: since every table is sharded by the same session hash, all of a session's rows
 *   meet on one shard, and reads with FINAL (merged per shard) stay exact;
 * - `schema_migrations` is replicated on every node, not sharded (PostHog's "noshard"
 *   path, replica `{replica}-{shard}`), so any node tells what was applied.
 */

export interface ClusterTarget {
  /** A cluster of the servers' remote_servers (or a macro such as `{cluster}`). */
  cluster: string;
  /** The database the app uses: Distributed tables name it. */
  database: string;
}

/** `<t>` on one node is `<t>_local` on each node of a cluster, behind a Distributed `<t>`. */
export const LOCAL_SUFFIX = "_local";

/**
 * The session of an event row, as the slot views hash it (0003_analytics.sql): rows of
 * one session land on one shard, with the slot and session rows made from them.
 */
const EVENT_SESSION = "cityHash64(if(session_code = '', concat('#', event_id), session_code))";

/**
 * The Distributed table's sharding key of every table a migration creates. A table
 * missing here stops the cluster migration with a sentence, so a new table's author
 * decides where its rows live.
 */
export const SHARDING_KEYS: Readonly<Record<string, string>> = {
  events: EVENT_SESSION,
  player_events: EVENT_SESSION,
  sale_events: EVENT_SESSION,
  // session_hash is EVENT_SESSION computed by the views that write these rows.
  analytics_session_slots: "session_hash",
  analytics_sessions: "session_hash",
  // Steps of sessions with a session code: cityHash64(session_code) is EVENT_SESSION there.
  funnel_steps: "session_hash",
  // A sale with a session goes where the session is (its hash is cityHash64(session_code));
  // one without, where its sale_events row went ('#' + event_id, which sale_key is).
  analytics_sales: "if(session_hash = 0, cityHash64(concat('#', sale_key)), session_hash)",
  // No session: the reads sum by minute across shards.
  ingest_counters: "rand()",
  // Rollups (0013_rollups.sql): a video's rows on one shard, so a read's per-hour
  // subquery (each hour's latest generation) sees them all where it runs.
  analytics_video_slots: "video_id",
  analytics_rollups: "video_id",
  analytics_rollup_marks: "rand()",
  analytics_rollup_dirty: "rand()",
  // Seller metrics per sealed hour (0015_group_rollups.sql), as analytics_rollups.
  analytics_group_rollups: "video_id",
  analytics_rollup_sale_dirty: "rand()",
  // Viewers' numbers (0020_viewer_bitmaps.sql): read through the Distributed table, so a viewer's row may live anywhere.
  viewer_ordinals: "viewer_hash",
};

/** Tables kept whole on every node (small, read by every process before anything else). */
const EVERYWHERE = new Set(["schema_migrations"]);

/** The table that records applied migrations (storage/clickhouse.ts); on a cluster it goes through clusterStatements too. */
export const SCHEMA_MIGRATIONS_DDL =
  "CREATE TABLE IF NOT EXISTS schema_migrations (version String, applied_at DateTime64(3) DEFAULT now64(3)) ENGINE = ReplacingMergeTree ORDER BY version";

/**
 * Query settings of every statement a cluster's client sends (storage/clickhouse.ts):
 * an INSERT into a Distributed table returns once each shard has its rows, not when the
 * initiator has queued them on its disk (an acknowledged event is stored, and a
 * backfill's rows are seen by the next statement); a subquery over a Distributed table
 * inside a query over another reads the whole cluster once (the reads' `IN (SELECT …)`).
 */
export const CLUSTER_SETTINGS = { insert_distributed_sync: 1, distributed_product_mode: "global" } as const;

/** A migration file's statements as they run: unchanged without a cluster. */
export function clusterMigration(statements: string[], target?: ClusterTarget): string[] {
  return target ? statements.flatMap((s) => clusterStatements(s, target)) : statements;
}

/** One statement as it runs: itself without a cluster, else what the cluster runs, in order. */
export function clusterStatements(statement: string, target?: ClusterTarget): string[] {
  if (!target) return [statement];
  const sql = statement.trim();
  const m = mask(sql);
  const on = ` ON CLUSTER ${literal(target.cluster)}`;
  let h: RegExpExecArray | null;
  if ((h = /^CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?/i.exec(m))) return createTable(sql, m, h[0].length, target);
  if ((h = /^CREATE\s+MATERIALIZED\s+VIEW\s+(?:IF\s+NOT\s+EXISTS\s+)?/i.exec(m))) return [createView(sql, m, h[0].length, on)];
  if ((h = /^ALTER\s+TABLE\s+/i.exec(m))) return alterTable(sql, m, h[0].length, on);
  if ((h = /^DROP\s+(VIEW|TABLE)\s+(?:IF\s+EXISTS\s+)?/i.exec(m))) return drop(sql, m, h[0].length, h[1]!.toUpperCase() === "TABLE", on);
  if ((h = /^INSERT\s+INTO\s+(?:TABLE\s+)?/i.exec(m))) return [insert(sql, m, h[0].length)];
  throw new Error(`no cluster form for this statement (clickhouse-ddl.ts): ${sql.slice(0, 60)}`);
}

// ---- statements -------------------------------------------------------------

function createTable(sql: string, m: string, at: number, target: ClusterTarget): string[] {
  const name = nameAt(sql, m, at);
  const afterName = at + name.length;
  const engine = /\bENGINE\s*=\s*([A-Za-z]+)/.exec(m.slice(afterName));
  if (!engine) throw new Error(`CREATE TABLE ${name} names no ENGINE`);
  const engineAt = afterName + engine.index + engine[0].length - engine[1]!.length;
  const kind = engine[1]!;
  let argsEnd = engineAt + kind.length;
  let args = "";
  const open = /^\s*\(/.exec(m.slice(argsEnd));
  if (open) {
    const close = closing(m, argsEnd + open[0].length - 1);
    args = sql.slice(argsEnd + open[0].length, close).trim();
    argsEnd = close + 1;
  }
  const on = ` ON CLUSTER ${literal(target.cluster)}`;

  if (EVERYWHERE.has(name)) {
    const engineSql = replicated(kind, `/clickhouse/tables/noshard/{database}/${name}`, "{replica}-{shard}", args);
    return [
      edit(sql, [
        { at: afterName, to: afterName, text: on },
        { at: engineAt, to: argsEnd, text: engineSql },
      ]),
    ];
  }
  const key = SHARDING_KEYS[name];
  if (key === undefined) throw new Error(`no sharding key for table "${name}": add it to SHARDING_KEYS in server/storage/clickhouse-ddl.ts`);
  const local = name + LOCAL_SUFFIX;
  const edits: Edit[] = [{ at: afterName, to: afterName, text: `${LOCAL_SUFFIX}${on}` }];
  // CREATE TABLE t AS <source>: the local table copies the source's local table.
  const as = /^\s+AS\s+/i.exec(m.slice(afterName));
  if (as) {
    const sourceAt = afterName + as[0].length;
    const source = nameAt(sql, m, sourceAt);
    if (SHARDING_KEYS[source] === undefined) throw new Error(`CREATE TABLE ${name} AS ${source}: ${source} is not a table of the schema`);
    edits.push({ at: sourceAt + source.length, to: sourceAt + source.length, text: LOCAL_SUFFIX });
  }
  if (kind !== "Null") edits.push({ at: engineAt, to: argsEnd, text: replicated(kind, `/clickhouse/tables/{shard}/{database}/${local}`, "{replica}", args) });
  const distributed = `Distributed(${literal(target.cluster)}, ${literal(target.database)}, ${literal(local)}, ${key})`;
  return [edit(sql, edits), `${sql.slice(0, at)}${name}${on} AS ${local} ENGINE = ${distributed}`];
}

function replicated(kind: string, path: string, replica: string, args: string): string {
  if (!/^[A-Za-z]*MergeTree$/.test(kind) || kind.startsWith("Replicated"))
    throw new Error(`no replicated form of ENGINE = ${kind} (a MergeTree engine or Null is expected)`);
  return `Replicated${kind}(${literal(path)}, ${literal(replica)}${args ? `, ${args}` : ""})`;
}

function createView(sql: string, m: string, at: number, on: string): string {
  const name = nameAt(sql, m, at);
  const afterName = at + name.length;
  const to = /^\s+TO\s+/i.exec(m.slice(afterName));
  if (!to) throw new Error(`materialized view ${name}: name its table with TO (a view's inner table would not be sharded)`);
  const destAt = afterName + to[0].length;
  const dest = nameAt(sql, m, destAt);
  if (SHARDING_KEYS[dest] === undefined) throw new Error(`materialized view ${name} writes to ${dest}, which is not a table of the schema`);
  const select = /\bAS\b/i.exec(m.slice(destAt + dest.length));
  if (!select) throw new Error(`materialized view ${name} has no AS SELECT`);
  const selectAt = destAt + dest.length + select.index;
  return edit(sql, [
    { at: afterName, to: afterName, text: on },
    { at: destAt + dest.length, to: destAt + dest.length, text: LOCAL_SUFFIX },
    ...localSources(m, selectAt),
  ]);
}

/** Changes of a table's columns reach its Distributed table too; the rest concern only where rows are kept. */
const COLUMN_CHANGE = /^(?:ADD|DROP|MODIFY|RENAME|COMMENT)\s+COLUMN\b/i;

function alterTable(sql: string, m: string, at: number, on: string): string[] {
  const name = nameAt(sql, m, at);
  const afterName = at + name.length;
  if (SHARDING_KEYS[name] === undefined) {
    // A materialized view (MODIFY QUERY): it lives on every node and reads local tables.
    return [edit(sql, [{ at: afterName, to: afterName, text: on }, ...localSources(m, afterName)])];
  }
  const actions = splitTopLevel(m, afterName).map((a) => COLUMN_CHANGE.test(m.slice(a).trimStart()));
  if (actions.some((c) => c !== actions[0])) throw new Error(`ALTER TABLE ${name}: put column changes and other changes in separate statements`);
  const edits: Edit[] = [{ at: afterName, to: afterName, text: `${LOCAL_SUFFIX}${on}` }];
  // One node's deduplication window is a replicated table's replicated_deduplication_window (0012_dedup_window.sql).
  for (const w of m.slice(afterName).matchAll(/\bnon_replicated_deduplication_window\b/g))
    edits.push({ at: afterName + w.index, to: afterName + w.index + "non_".length, text: "" });
  const local = edit(sql, edits);
  if (!actions[0]) return [local];
  // Shards first: the Distributed table never names a column they lack.
  return [local, edit(sql, [{ at: afterName, to: afterName, text: on }])];
}

function drop(sql: string, m: string, at: number, table: boolean, on: string): string[] {
  const name = nameAt(sql, m, at);
  const afterName = at + name.length;
  if (m.slice(afterName).trim() !== "") throw new Error(`DROP ${name}: nothing may follow the name`);
  if (!table || SHARDING_KEYS[name] === undefined) return [`${sql}${on}`];
  // The Distributed table first; SYNC frees the Keeper path at once, so the table can be made again.
  return [`${sql}${on}`, `${sql.slice(0, afterName)}${LOCAL_SUFFIX}${on} SYNC`];
}

function insert(sql: string, m: string, at: number): string {
  const name = nameAt(sql, m, at);
  if (SHARDING_KEYS[name] === undefined) throw new Error(`INSERT INTO ${name}: not a table of the schema`);
  if (/\bJOIN\b/i.test(m)) throw new Error(`INSERT INTO ${name}: a backfill with a JOIN needs GLOBAL JOIN on a cluster; write it with IN`);
  // Through the Distributed tables: read from every shard, each row sent to its shard. A
  // subquery over a Distributed table is run once and its set sent to the shards (GLOBAL),
  // so "not copied yet" means not copied anywhere.
  const edits: Edit[] = [];
  for (const g of m.matchAll(/(?<!GLOBAL\s+)\b((?:NOT\s+)?IN\s*\(\s*SELECT)\b/gi)) edits.push({ at: g.index, to: g.index, text: "GLOBAL " });
  return edit(sql, edits);
}

/** Tables a SELECT reads (after FROM or JOIN, from `at` on), named as their local tables. */
function localSources(m: string, at: number): Edit[] {
  const edits: Edit[] = [];
  for (const f of m.slice(at).matchAll(/\b(?:FROM|JOIN)\s+([A-Za-z_][A-Za-z0-9_]*)\b(?!\s*[.(])/gi)) {
    if (SHARDING_KEYS[f[1]!] === undefined) continue;
    const end = at + f.index + f[0].length;
    edits.push({ at: end, to: end, text: LOCAL_SUFFIX });
  }
  return edits;
}

// ---- text -------------------------------------------------------------------

interface Edit {
  at: number;
  to: number;
  text: string;
}

function edit(sql: string, edits: Edit[]): string {
  let out = sql;
  for (const e of [...edits].sort((a, b) => b.at - a.at)) out = out.slice(0, e.at) + e.text + out.slice(e.to);
  return out;
}

/** A ClickHouse string literal. */
function literal(value: string): string {
  return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/** A bare table name at `at`; a qualified or quoted one is refused (the app's database is the connection's). */
function nameAt(sql: string, m: string, at: number): string {
  const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(m.slice(at));
  if (!word || m[at + word[0].length] === ".") throw new Error(`expected a bare table name at: ${sql.slice(at, at + 40)}`);
  return word[0];
}

/**
 * The statement with string literals, quoted names and comments blanked (same length), so
 * keywords and names are found only in the SQL itself; positions match the original's.
 */
function mask(sql: string): string {
  let out = "";
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"' || c === "`") {
      let j = i + 1;
      while (j < sql.length) {
        if (sql[j] === "\\") j += 2;
        else if (sql[j] === c && sql[j + 1] === c) j += 2;
        else if (sql[j] === c) break;
        else j++;
      }
      j = Math.min(j + 1, sql.length);
      out += c + " ".repeat(Math.max(0, j - i - 2)) + (j - i >= 2 ? c : "");
      i = j;
    } else if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      const j = end < 0 ? sql.length : end;
      out += " ".repeat(j - i);
      i = j;
    } else if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      const j = end < 0 ? sql.length : end + 2;
      out += sql.slice(i, j).replace(/[^\n]/g, " ");
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The index of the bracket closing the one at `open` (in masked text). */
function closing(m: string, open: number): number {
  let depth = 0;
  for (let i = open; i < m.length; i++) {
    if ("([".includes(m[i]!)) depth++;
    else if (")]".includes(m[i]!) && --depth === 0) return i;
  }
  throw new Error("unbalanced brackets");
}

/** Where each comma-separated part starts (commas inside brackets do not separate). */
function splitTopLevel(m: string, from: number): number[] {
  const starts = [from];
  let depth = 0;
  for (let i = from; i < m.length; i++) {
    if ("([".includes(m[i]!)) depth++;
    else if (")]".includes(m[i]!)) depth--;
    else if (m[i] === "," && depth === 0) starts.push(i + 1);
  }
  return starts;
}
