/**
 * The embedded PostgreSQL's thread (started by pglite.ts): PGlite in a data
 * directory behind pglite-socket, so postgres.js on the main thread talks to it
 * over the wire protocol like to a server.
 */
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { mkdir } from "node:fs/promises";

declare const self: Worker;

/** What this thread tells pglite.ts. */
export type WorkerAnswer = { url: string } | { error: string } | { stopped: true } | { broken: string };

let running: { db: PGlite; server: PGLiteSocketServer } | undefined;

self.onmessage = async (event: MessageEvent<{ start?: string; port?: number; stop?: true }>) => {
  if (event.data.start !== undefined) {
    try {
      const dir = event.data.start;
      await mkdir(dir, { recursive: true });
      const db = await PGlite.create(dir);
      const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: event.data.port ?? 0, maxConnections: 32 });
      const broken = watchForBrokenEngine(db, (reason) => postMessage({ broken: reason } satisfies WorkerAnswer));
      oneConnectionAtATime(server, db, broken);
      await server.start();
      running = { db, server };
      postMessage({ url: `postgres://postgres@${server.getServerConn()}/postgres` } satisfies WorkerAnswer);
    } catch (error) {
      postMessage({ error: error instanceof Error ? error.message : String(error) } satisfies WorkerAnswer);
    }
  } else if (event.data.stop) {
    if (running) {
      await running.server.stop().catch(() => {});
      await running.db.close().catch(() => {});
      running = undefined;
    }
    postMessage({ stopped: true } satisfies WorkerAnswer);
  }
};

interface PostgresModule {
  _PostgresMainLoopOnce(...args: unknown[]): unknown;
  _pq_buffer_remaining_data(...args: unknown[]): number;
}

/**
 * PGlite runs each wire message through `_PostgresMainLoopOnce` and turns a
 * Postgres ERROR (a longjmp, thrown as an exception with its own status) into
 * an error answer. Any other exception, such as the JavaScript engine's
 * "Maximum call stack size exceeded" when a parameter (a jsonb nested a few
 * thousand deep) recurses past this thread's native stack, is swallowed by
 * PGlite: the statement is abandoned half-way, its ERROR is never sent, and
 * the next message on the session gets no answer. Postgres's own guard
 * (max_stack_depth) cannot catch it: it measures WebAssembly's shadow stack,
 * which such recursion barely touches.
 *
 * So such an exception marks the engine broken: the exchange in progress
 * fails at once (instead of the loop going on over a corrupt session) and
 * `onBroken` asks pglite.ts for a fresh engine on the same data directory,
 * which keeps every committed write (they are in its WAL).
 * Returns the test "is the engine broken?".
 */
function watchForBrokenEngine(db: PGlite, onBroken: (reason: string) => void): () => boolean {
  // PGlite's private fields: it has no public way to reach the engine's loop.
  const mod = (db as unknown as { mod: PostgresModule }).mod;
  const longjmp = (db as unknown as { POSTGRES_MAIN_LONGJMP: unknown }).POSTGRES_MAIN_LONGJMP;
  const loopOnce = mod._PostgresMainLoopOnce.bind(mod);
  const remaining = mod._pq_buffer_remaining_data.bind(mod);
  let broken: Error | undefined;
  mod._PostgresMainLoopOnce = (...args) => {
    try {
      return loopOnce(...args);
    } catch (error) {
      if ((error as { status?: unknown } | null)?.status !== longjmp && !broken) {
        broken = new Error(`the engine failed outside Postgres's error handling: ${String(error)}`);
        onBroken(broken.message);
      }
      throw error;
    }
  };
  // PGlite's loop catches every exception of the call above; this is what ends the loop.
  mod._pq_buffer_remaining_data = (...args) => {
    if (broken) throw broken;
    return remaining(...args);
  };
  return () => broken !== undefined;
}

interface MessageQueue {
  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number>;
  clearQueueForHandler(handlerId: number): void;
  clearTransactionIfNeeded(handlerId: number): Promise<void>;
}

/** Extended-protocol messages after which the same connection must continue: Parse, Bind, Describe, Execute, Close, Flush. */
const CONTINUED = new Set(["P", "B", "D", "E", "C", "H"].map((c) => c.charCodeAt(0)));

/** Messages whose answers wait for the rest of their exchange (Parse, Bind, Describe, Execute, Close): the client reads them after its Sync or Flush. */
const HELD = new Set(["P", "B", "D", "E", "C"].map((c) => c.charCodeAt(0)));

/** A wire message: type byte, then its length (itself included) and body. */
function wireMessage(type: string, body: string): Uint8Array {
  const bytes = new TextEncoder().encode(body);
  const message = new Uint8Array(5 + bytes.length);
  message[0] = type.charCodeAt(0);
  new DataView(message.buffer).setInt32(1, 4 + bytes.length);
  message.set(bytes, 5);
  return message;
}
const SYNC = wireMessage("S", "");
const ROLLBACK = wireMessage("Q", "ROLLBACK\0");

/**
 * pglite-socket interleaves connections between messages, while every
 * connection shares PGlite's single session. A query of the extended protocol
 * spans several messages (Parse, Bind, Execute ... Sync) around the session's
 * unnamed portal, so another connection's Bind or Sync in between destroys it
 * ("portal \"\" does not exist") or answers with the wrong rows. So a
 * connection keeps the session from its first message until a message that
 * ends its exchange (Sync, simple Query) leaves no transaction open and none
 * of its messages is still queued (a pipelining client has the next query's
 * Parse queued before this Sync is answered).
 *
 * This replaces pglite-socket's own queue, whose loop stops for good after one
 * failed message (its `processing` flag is never reset), and which hands a
 * dropped connection's open transaction to the next connection before rolling
 * it back.
 */
function oneConnectionAtATime(server: PGLiteSocketServer, db: PGlite, isBroken: () => boolean): void {
  // pglite-socket's private queue, replaced as said above.
  const queue = (server as unknown as { queryQueue: MessageQueue }).queryQueue;
  let owner: number | null = null;
  /** Messages of each connection handed to the engine and not yet answered. */
  const inFlight = new Map<number, number>();
  /** Connections gone: their late messages are refused, not run. */
  const dropped = new Set<number>();
  const waiting: (() => void)[] = [];
  /** The engine takes one message at a time, in the order they were admitted. */
  let tail: Promise<unknown> = Promise.resolve();
  const run = (message: Uint8Array, onData: (data: Uint8Array) => void): Promise<void> => {
    const next = tail.then(() => {
      if (isBroken()) throw new Error("the embedded database is restarting");
      return db.execProtocolRawStream(message, { onRawData: onData });
    });
    tail = next.catch(() => {});
    return next;
  };
  /**
   * The answers to the messages of one exchange go out in one socket write, at the
   * message the client waits on (Sync, Flush, a simple Query, ...), not one write per
   * message: the client reads one packet per statement instead of three or four.
   */
  const held = new Map<number, Uint8Array[]>();
  const answerOnce = (handlerId: number, type: number, onData: (data: Uint8Array) => void) => {
    if (HELD.has(type)) {
      return (data: Uint8Array) => {
        if (data.length === 0) return;
        const list = held.get(handlerId) ?? [];
        list.push(data.slice()); // PGlite may reuse the memory it hands out
        held.set(handlerId, list);
      };
    }
    return (data: Uint8Array) => {
      const before = held.get(handlerId);
      if (before) {
        held.delete(handlerId);
        onData(Buffer.concat([...before, data]));
      } else onData(data);
    };
  };
  const release = () => {
    owner = null;
    for (const wake of waiting.splice(0)) wake();
  };

  queue.enqueue = async (handlerId, message, onData) => {
    while (owner !== null && owner !== handlerId) await new Promise<void>((wake) => waiting.push(wake));
    if (dropped.has(handlerId)) throw new Error("Handler disconnected");
    owner = handlerId;
    inFlight.set(handlerId, (inFlight.get(handlerId) ?? 0) + 1);
    try {
      await run(message, answerOnce(handlerId, message[0]!, onData));
      // A Flush answers nothing itself: what it asks for goes out now.
      const before = HELD.has(message[0]!) ? undefined : held.get(handlerId);
      if (before) {
        held.delete(handlerId);
        onData(Buffer.concat(before));
      }
      return 0;
    } finally {
      const left = (inFlight.get(handlerId) ?? 1) - 1;
      if (left > 0) inFlight.set(handlerId, left);
      else inFlight.delete(handlerId);
      // A dropped connection gives the session back only after its rollback (clearTransactionIfNeeded).
      if (owner === handlerId && left === 0 && !dropped.has(handlerId) && !CONTINUED.has(message[0]!) && !db.isInTransaction()) release();
    }
  };
  queue.clearQueueForHandler = (handlerId) => {
    dropped.add(handlerId);
    held.delete(handlerId);
    // Its messages still waiting for the session wake up and are refused.
    if (owner !== handlerId) for (const wake of waiting.splice(0)) wake();
  };
  queue.clearTransactionIfNeeded = async (handlerId) => {
    if (owner === handlerId) {
      // End what the dropped connection left open (an exchange cut before its Sync, a
      // transaction) before anyone else gets the session.
      await run(SYNC, () => {}).catch(() => {});
      if (db.isInTransaction()) await run(ROLLBACK, () => {}).catch(() => {});
      release();
    }
    // Ids are never reused; forget it once its late messages have surely been refused.
    setTimeout(() => dropped.delete(handlerId), 60_000).unref();
  };
}
