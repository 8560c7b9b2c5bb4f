/**
 * The embedded PostgreSQL's thread (started by pglite.ts): PGlite in a data
 * directory behind pglite-socket, so postgres.js on the main thread talks to it
 * over the wire protocol like to a server.
 */
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { mkdir } from "node:fs/promises";

declare const self: Worker;

let running: { db: PGlite; server: PGLiteSocketServer } | undefined;

self.onmessage = async (event: MessageEvent<{ start?: string; stop?: true }>) => {
  if (event.data.start !== undefined) {
    try {
      const dir = event.data.start;
      await mkdir(dir, { recursive: true });
      const db = await PGlite.create(dir);
      const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 32 });
      oneConnectionAtATime(server, db);
      await server.start();
      running = { db, server };
      postMessage({ url: `postgres://postgres@${server.getServerConn()}/postgres` });
    } catch (error) {
      postMessage({ error: error instanceof Error ? error.message : String(error) });
    }
  } else if (event.data.stop) {
    if (running) {
      await running.server.stop().catch(() => {});
      await running.db.close().catch(() => {});
      running = undefined;
    }
    postMessage({ stopped: true });
  }
};

interface MessageQueue {
  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number>;
  clearQueueForHandler(handlerId: number): void;
}

/** Extended-protocol messages after which the same connection must continue: Parse, Bind, Describe, Execute, Close, Flush. */
const CONTINUED = new Set(["P", "B", "D", "E", "C", "H"].map((c) => c.charCodeAt(0)));

/**
 * pglite-socket runs one message at a time but interleaves connections between
 * messages, while every connection shares PGlite's single session. A query of the
 * extended protocol spans several messages (Parse, Bind, Execute ... Sync) around
 * the session's unnamed portal, so another connection's Bind or Sync in between
 * destroys it ("portal \"\" does not exist") or answers with the wrong rows. So a
 * connection keeps the session from its first message until a message that ends
 * its exchange (Sync, simple Query) leaves no transaction open and none of its
 * messages is still queued (a pipelining client has the next query's Parse
 * queued before this Sync is answered).
 */
function oneConnectionAtATime(server: PGLiteSocketServer, db: PGlite): void {
  const queue = (server as unknown as { queryQueue: MessageQueue }).queryQueue;
  let owner: number | null = null;
  /** Messages of each connection handed to the queue and not yet answered. */
  const queued = new Map<number, number>();
  const waiting: (() => void)[] = [];
  const release = () => {
    owner = null;
    for (const wake of waiting.splice(0)) wake();
  };
  const enqueue = queue.enqueue.bind(queue);
  queue.enqueue = async (handlerId, message, onData) => {
    while (owner !== null && owner !== handlerId) await new Promise<void>((wake) => waiting.push(wake));
    owner = handlerId;
    queued.set(handlerId, (queued.get(handlerId) ?? 0) + 1);
    try {
      return await enqueue(handlerId, message, onData);
    } finally {
      const left = (queued.get(handlerId) ?? 1) - 1;
      if (left > 0) queued.set(handlerId, left);
      else queued.delete(handlerId);
      // Only the owner gives the session back (a dropped connection's late answers must not).
      if (owner === handlerId && left === 0 && !CONTINUED.has(message[0]!) && !db.isInTransaction()) release();
    }
  };
  const clear = queue.clearQueueForHandler.bind(queue);
  queue.clearQueueForHandler = (handlerId) => {
    clear(handlerId);
    if (owner === handlerId) release();
  };
}
