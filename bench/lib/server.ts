/** Starts `npm start`'s entry point in a child process on a temp DATA_DIR and waits for its token. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RunningServer {
  url: string;
  token: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/**
 * `npm start` on a fresh DATA_DIR. By default it waits for the token a first start
 * prints; `listening: true` waits for the listening line instead (a second process on
 * a database that already has its workspace prints no token: `token` is then "").
 */
export async function startServer(env: Record<string, string> = {}, opts: { listening?: boolean } = {}): Promise<RunningServer> {
  const dataDir = await mkdtemp(join(tmpdir(), "frameline-bench-"));
  const port = await freePort();
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "server", "main.ts")], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: "warn", DATABASE_URL: "", ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = proc.stdout.getReader();
  let out = "";
  const deadline = Date.now() + 60_000;
  const ready = opts.listening ? /Frameline is listening on/ : /FRAMELINE_TOKEN=(\S+)/;
  while (!ready.test(out)) {
    if (Date.now() > deadline) throw new Error(`server did not start:\n${out}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited:\n${out}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  void proc.stdout.pipeTo(new WritableStream()).catch(() => {});
  return {
    url: `http://127.0.0.1:${port}`,
    token: /FRAMELINE_TOKEN=(\S+)/.exec(out)?.[1] ?? "",
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
