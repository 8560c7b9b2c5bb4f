/**
 * The real process, as `npm start` runs it (the same Bun flags as package.json's
 * start script), on a data directory and port of its own, for tests that need
 * real HTTP, signals or the printed banner.
 */
import { join } from "node:path";
import type { Subprocess } from "bun";

export const ROOT = join(import.meta.dir, "..", "..");
export const BUN = join(ROOT, "node_modules", ".bin", "bun");

/** The arguments `npm start` gives bun (package.json "start": "bun <args>"). */
const START_ARGS: string[] = (await Bun.file(join(ROOT, "package.json")).json()).scripts.start.split(/\s+/).slice(1);

const running: Subprocess[] = [];

/** Kills what is still running (call from afterAll). */
export async function killAll(): Promise<void> {
  for (const proc of running.splice(0)) {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill("SIGKILL");
      await proc.exited;
    }
  }
}

export async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  await probe.stop(true);
  return port;
}

/** The environment of a newcomer: nothing set but what the test names. */
export function env(extra: Record<string, string>): Record<string, string> {
  const keep = ["PATH", "HOME", "TMPDIR"];
  const base: Record<string, string> = {};
  for (const name of keep) if (process.env[name]) base[name] = process.env[name]!;
  return { ...base, LOG_LEVEL: "warn", ...extra };
}

export interface Server {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
}

export function start(dir: string, port: number, extra: Record<string, string> = {}): Server {
  const proc = Bun.spawn([BUN, ...START_ARGS], {
    cwd: ROOT,
    env: env({ DATA_DIR: dir, PORT: String(port), ...extra }),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  running.push(proc);
  let out = "";
  let err = "";
  void (async () => {
    for await (const chunk of proc.stdout.pipeThrough(new TextDecoderStream())) out += chunk;
  })();
  void (async () => {
    for await (const chunk of proc.stderr.pipeThrough(new TextDecoderStream())) err += chunk;
  })();
  return {
    proc,
    output: () => out,
    async waitFor(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const match = pattern.exec(out);
        if (match) return match;
        if (proc.exitCode !== null) break;
        await Bun.sleep(100);
      }
      throw new Error(`server did not print ${pattern} (exit ${proc.exitCode})\nstdout:\n${out}\nstderr:\n${err}`);
    },
  };
}

/** SIGTERM, then the exit code, or null when it has not exited within `ms`. */
export async function stop(server: Server, ms = 10_000): Promise<number | null> {
  server.proc.kill("SIGTERM");
  return Promise.race([server.proc.exited, Bun.sleep(ms).then(() => null)]);
}
