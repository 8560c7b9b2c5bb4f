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

/** A helper server running in a child process, once it printed its ready line. */
export interface ReadyChild {
  /** The ready line's captures (`match[1]` ...). */
  match: RegExpExecArray;
  proc: Subprocess;
  /** SIGTERM, then SIGKILL after 10 s; resolves when it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts `args` and reads its stdout until `ready` matches (within `timeoutMs`); then the
 * rest of its output is drained. Throws, after killing it, when it exits or times out first.
 */
export async function spawnUntilReady(what: string, args: string[], ready: RegExp, timeoutMs = 60_000): Promise<ReadyChild> {
  const proc = Bun.spawn(args, { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let out = "";
  const deadline = Date.now() + timeoutMs;
  let match: RegExpExecArray | null = null;
  while (!(match = ready.exec(out)) && Date.now() < deadline) {
    const chunk = await Promise.race([reader.read(), Bun.sleep(Math.max(0, deadline - Date.now())).then(() => undefined)]);
    if (!chunk || chunk.done) break;
    out += decoder.decode(chunk.value);
  }
  reader.releaseLock();
  if (!match) {
    proc.kill("SIGKILL");
    throw new Error(`${what} did not start (exit ${proc.exitCode}):\n${out}`);
  }
  void proc.stdout.pipeTo(new WritableStream()).catch(() => {});
  return {
    match,
    proc,
    async stop() {
      proc.kill("SIGTERM");
      if ((await Promise.race([proc.exited, Bun.sleep(10_000).then(() => "late")])) === "late") proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}
