/**
 * A TCP proxy on a loopback port in front of a server, that kills the
 * connection carrying the upload once a given number of request bytes have
 * gone through it, and then refuses connections until healed: a real network
 * outage in the middle of a chunk, for any HTTP client (tus-js-client under
 * Bun, Chromium's XHR) without touching it. (Refusing matters: Chromium quietly
 * sends a request again when a reused connection dies under it.)
 */
import { connect, createServer, type Socket } from "node:net";

export interface CutProxy {
  port: number;
  /** Kill the connection that carries the `bytes`-th request byte from now on (counted over all connections). */
  cutAfter(bytes: number): void;
  /** Resolves when the cut has happened. */
  readonly cut: Promise<void>;
  /** Takes connections again after a cut. */
  heal(): void;
  /** Request bytes passed on so far. */
  readonly forwarded: number;
  stop(): Promise<void>;
}

export async function startCutProxy(targetPort: number): Promise<CutProxy> {
  let forwarded = 0;
  let limit = Number.POSITIVE_INFINITY;
  let markCut!: () => void;
  const cut = new Promise<void>((resolve) => (markCut = resolve));
  const sockets = new Set<Socket>();
  let down = false;
  const server = createServer((client) => {
    if (down) return void client.destroy();
    const upstream = connect(targetPort, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    let dropped = false;
    client.on("data", (data: Buffer) => {
      if (dropped) return;
      const room = limit - forwarded;
      if (data.length < room) {
        forwarded += data.length;
        upstream.write(data);
        return;
      }
      // Pass on what fits, then drop both sides as a broken network would.
      forwarded += room;
      limit = Number.POSITIVE_INFINITY;
      dropped = true;
      down = true;
      upstream.write(data.subarray(0, room), () => {
        setTimeout(() => {
          client.destroy();
          upstream.destroy();
          markCut();
        }, 50);
      });
    });
    upstream.on("data", (data: Buffer) => client.write(data));
    client.on("end", () => upstream.end());
    upstream.on("end", () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the proxy has no port");
  return {
    port: address.port,
    cutAfter(bytes) {
      limit = forwarded + bytes;
    },
    cut,
    heal() {
      down = false;
    },
    get forwarded() {
      return forwarded;
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
