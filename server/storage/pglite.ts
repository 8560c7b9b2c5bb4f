/**
 * Embedded PostgreSQL: PGlite in DATA_DIR, served over the Postgres wire
 * protocol on a loopback port so postgres.js talks to it like to a server.
 */
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { mkdir } from "node:fs/promises";

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

export async function startEmbeddedPostgres(dir: string): Promise<EmbeddedPostgres> {
  await mkdir(dir, { recursive: true });
  const db = await PGlite.create(dir);
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 32 });
  await server.start();
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
