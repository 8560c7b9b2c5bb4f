/**
 * Embedded PostgreSQL under concurrency: many pooled connections, each
 * pipelining queries, all sharing PGlite's one session. Every query must get
 * its own rows, and a transaction must see only its own writes.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../../server/storage/pglite.ts";

let dir: string;
let pg: EmbeddedPostgres;
let sql: postgres.Sql;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "frameline-pglite-"));
  pg = await startEmbeddedPostgres(dir);
  sql = postgres(pg.url, { max: 16, onnotice: () => {} });
  await sql`CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL)`;
}, 60_000);

afterAll(async () => {
  await sql?.end();
  await pg?.stop();
  await rm(dir, { recursive: true, force: true });
});

test("thousands of concurrent, pipelined queries each get their own answer", async () => {
  const answers = await Promise.all(
    Array.from({ length: 3000 }, (_, i) =>
      i % 2
        ? sql<{ n: number; s: string }[]>`SELECT ${i}::int AS n, ${`q${i}`}::text AS s`
        : sql<{ n: number; s: string }[]>`SELECT ${i}::int + 0 AS n, 'q' || ${i}::text AS s`,
    ),
  );
  answers.forEach((rows, i) => expect([...rows]).toEqual([{ n: i, s: `q${i}` }]));
}, 60_000);

test("bursts arriving while earlier bursts are still answered each get their own answer", async () => {
  // Waves of pipelined queries started before the previous wave is answered:
  // a connection's next query is queued while its last Sync is in flight.
  const waves: Promise<void>[] = [];
  for (let wave = 0; wave < 40; wave++) {
    waves.push(
      Promise.all(
        Array.from({ length: 64 }, async (_, i) => {
          const n = wave * 1000 + i;
          const rows = await sql<{ n: number }[]>`SELECT ${n}::int AS n FROM generate_series(1, ${1 + (i % 3)}) LIMIT 1`;
          expect([...rows]).toEqual([{ n }]);
        }),
      ).then(() => {}),
    );
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(waves);
}, 60_000);

test("transactions beside a stream of single queries keep their own writes", async () => {
  const transactions = Array.from({ length: 50 }, (_, id) =>
    sql.begin(async (tx) => {
      await tx`INSERT INTO counters (id, n) VALUES (${id}, 0)`;
      for (let k = 0; k < 5; k++) await tx`UPDATE counters SET n = n + 1 WHERE id = ${id}`;
      const [row] = await tx<{ n: number }[]>`SELECT n FROM counters WHERE id = ${id}`;
      return row!.n;
    }),
  );
  const singles = Array.from({ length: 500 }, (_, i) => sql<{ n: number }[]>`SELECT ${i}::int AS n`);
  expect(await Promise.all(transactions)).toEqual(Array(50).fill(5));
  (await Promise.all(singles)).forEach((rows, i) => expect([...rows]).toEqual([{ n: i }]));
  const [{ total }] = await sql<{ total: number }[]>`SELECT sum(n)::int AS total FROM counters`;
  expect(total).toBe(250);
}, 60_000);

test("a connection dropped in the middle of a transaction gives the session back, and its writes are rolled back", async () => {
  const victim = postgres(pg.url, { max: 1, onnotice: () => {} });
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const abandoned = victim
    .begin(async (tx) => {
      await tx`INSERT INTO counters (id, n) VALUES (999, 1)`;
      entered();
      await new Promise(() => {}); // never commits
    })
    .catch(() => "dropped");
  await inside;
  const others = Promise.all(Array.from({ length: 200 }, (_, i) => sql<{ n: number }[]>`SELECT ${i}::int AS n`));
  await victim.end({ timeout: 0 });
  expect(await abandoned).toBe("dropped");
  (await others).forEach((rows, i) => expect([...rows]).toEqual([{ n: i }]));
  expect([...(await sql`SELECT id FROM counters WHERE id = 999`)]).toEqual([]);
  expect([...(await sql<{ n: number }[]>`SELECT 1::int AS n`)]).toEqual([{ n: 1 }]);
}, 30_000);

/** JSON nested `depth` levels deep, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = "x";
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** Resolves to "timeout" when `promise` has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  return Promise.race([promise, new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), ms))]);
}

test("a value the engine cannot take without overflowing its stack fails alone: the session is not left held and every committed write survives", async () => {
  // A jsonb parameter nested 5,000 deep overflows the engine thread's native stack inside the
  // Bind message; Postgres's own depth guard never sees it (it measures another stack).
  await sql`CREATE TABLE deep_values (id int PRIMARY KEY, doc jsonb)`;
  await sql`INSERT INTO counters (id, n) VALUES (5000, 42)`;
  const victim = postgres(pg.url, { max: 1, onnotice: () => {} });
  const deep = nested(5000);
  const attempts: unknown[] = [];
  for (let id = 1; id <= 2; id++) {
    attempts.push(
      await within(
        victim`INSERT INTO deep_values (id, doc) VALUES (${id}, ${victim.json(deep as never)})`.then(
          () => "stored",
          (error) => (error as { code?: string }).code ?? String(error),
        ),
        20_000,
      ),
    );
  }
  await victim.end({ timeout: 1 }).catch(() => {});
  // Each attempt answers (an error or a stored row), never hangs; a row said stored is really there.
  expect(attempts).not.toContain("timeout");
  const stored = attempts.flatMap((a, i) => (a === "stored" ? [i + 1] : []));
  // Every other connection gets its answers, in a few seconds at most.
  const answers = await within(
    (async () => {
      for (let i = 0; i < 50; i++) {
        const ok = await sql<{ n: number }[]>`SELECT ${i}::int AS n`.then(
          (rows) => rows[0]!.n === i,
          () => false,
        );
        if (!ok) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return [...(await sql<{ id: number }[]>`SELECT id FROM deep_values ORDER BY id`)].map((r) => r.id);
    })(),
    20_000,
  );
  expect(answers).toEqual(stored);
  expect([...(await sql<{ n: number }[]>`SELECT n FROM counters WHERE id = 5000`)]).toEqual([{ n: 42 }]);
}, 60_000);

/** A raw wire-protocol client: what arrives on the socket, read by read. */
async function rawConnection(url: string) {
  const { hostname, port } = new URL(url);
  const { connect } = await import("node:net");
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  const reads: Buffer[] = [];
  let wake: (() => void) | undefined;
  socket.on("data", (data: Buffer) => {
    reads.push(data);
    wake?.();
  });
  const message = (type: string, ...parts: (string | number[])[]) => {
    const body = Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(`${p}\0`) : Buffer.from(p))));
    const head = Buffer.alloc(5);
    head.write(type, 0);
    head.writeInt32BE(4 + body.length, 1);
    return Buffer.concat([head, body]);
  };
  /** The reads that arrive until one ends with a message of this type. */
  const until = async (type: string): Promise<Buffer[]> => {
    const got: Buffer[] = [];
    for (;;) {
      while (reads.length) {
        const read = reads.shift()!;
        got.push(read);
        if (lastType(Buffer.concat(got)) === type) return got;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  const startup = Buffer.concat([Buffer.from([0, 0, 0, 0, 0, 3, 0, 0]), Buffer.from("user\0postgres\0database\0postgres\0\0")]);
  startup.writeInt32BE(startup.length, 0);
  socket.write(startup);
  await until("Z");
  return { socket, message, until };
}

/** The type of the last whole message in a run of backend messages. */
function lastType(bytes: Buffer): string | undefined {
  let at = 0;
  let last: string | undefined;
  while (at + 5 <= bytes.length) {
    const end = at + 1 + bytes.readInt32BE(at + 1);
    if (end > bytes.length) return undefined;
    last = String.fromCharCode(bytes[at]!);
    at = end;
  }
  return at === bytes.length ? last : undefined;
}

/** The types of the backend messages in these bytes, in order. */
function types(bytes: Buffer): string {
  let out = "";
  for (let at = 0; at + 5 <= bytes.length; at += 1 + bytes.readInt32BE(at + 1)) out += String.fromCharCode(bytes[at]!);
  return out;
}

test("an extended-protocol exchange is answered in one write; a Flush gets its answers without a Sync", async () => {
  const { socket, message, until } = await rawConnection(pg.url);
  try {
    // Parse, Bind, Describe (portal), Execute, Sync: ParseComplete, BindComplete, RowDescription, DataRow, CommandComplete, ReadyForQuery.
    const zero = [0, 0];
    const bind = message("B", "", "", [0, 0, 0, 0, 0, 0]);
    socket.write(Buffer.concat([message("P", "", "SELECT 41 + 1 AS n", zero), bind, message("D", "P", []), message("E", "", [0, 0, 0, 0]), message("S")]));
    const answer = await until("Z");
    expect(types(Buffer.concat(answer))).toBe("12TDCZ");
    expect(answer).toHaveLength(1);

    // A statement that fails: the error and ReadyForQuery, together.
    socket.write(Buffer.concat([message("P", "", "SELECT * FROM no_such_table", zero), bind, message("E", "", [0, 0, 0, 0]), message("S")]));
    const failed = await until("Z");
    expect(types(Buffer.concat(failed))).toBe("EZ");
    expect(failed).toHaveLength(1);

    // Parse then Flush: ParseComplete arrives though no Sync was sent.
    socket.write(Buffer.concat([message("P", "", "SELECT 1", zero), message("H")]));
    expect(types(Buffer.concat(await until("1")))).toBe("1");
    socket.write(message("S"));
    expect(types(Buffer.concat(await until("Z")))).toBe("Z");
  } finally {
    socket.destroy();
  }
}, 30_000);
