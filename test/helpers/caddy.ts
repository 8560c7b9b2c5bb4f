/**
 * Caddy (Debian's `caddy` 2.6, /usr/bin/caddy; `.ci/run` installs it) as the load
 * balancer in front of several app processes (docs/architecture.md "One process
 * or many"): round robin, so consecutive requests alternate; an upstream that
 * fails a request or its `/health` check is left out until it answers again, as
 * an operator would run it.
 *
 * No `lb_try_duration`: Caddy 2.6 retries a request whose dial failed with its body
 * already closed (caddyserver/caddy#7546, fixed in 2.11), so a POST retried on a
 * live app fails there and marks that app down too. The health checks keep dead
 * apps out of the rotation instead; the one request that finds an app dead first
 * is answered 502, and the client retries it with its dedup key (docs/architecture.md
 * "One process or many").
 */
import { mkdir, readFile } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import type { Subprocess } from "bun";

export const CADDY = process.env.CADDY_PATH || "/usr/bin/caddy";

export interface Caddy {
  url: string;
  port: number;
  proc: Subprocess;
  stop(): Promise<void>;
}

/** The Caddyfile: plain HTTP on loopback, no admin endpoint, no automatic HTTPS. */
export function caddyfile(port: number, upstreams: string[]): string {
  return `{
	admin off
	auto_https off
}

http://127.0.0.1:${port} {
	bind 127.0.0.1
	reverse_proxy ${upstreams.join(" ")} {
		lb_policy round_robin
		health_uri /health
		health_interval 1s
		health_timeout 2s
		fail_duration 30s
		# Stream request and response bodies as they come (chunked uploads, no buffering).
		flush_interval -1
	}
}
`;
}

/** Caddy listens: its upstreams may not be up yet (a request would wait for them), so only the port is asked. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

/** Caddy on `port` in front of `upstreams` (host:port), its files under `dir`. */
export async function startCaddy(opts: { port: number; upstreams: string[]; dir: string; timeoutMs?: number }): Promise<Caddy> {
  await mkdir(opts.dir, { recursive: true });
  const config = join(opts.dir, "Caddyfile");
  await Bun.write(config, caddyfile(opts.port, opts.upstreams));
  const log = join(opts.dir, "caddy.log");
  const proc = Bun.spawn([CADDY, "run", "--config", config, "--adapter", "caddyfile"], {
    // Caddy keeps its state under XDG dirs (certificates, locks): here, never the user's home.
    env: { PATH: process.env.PATH ?? "", HOME: opts.dir, XDG_DATA_HOME: join(opts.dir, "data"), XDG_CONFIG_HOME: join(opts.dir, "config") },
    stdin: "ignore",
    stdout: Bun.file(join(opts.dir, "caddy.out")),
    stderr: Bun.file(log),
  });
  const url = `http://127.0.0.1:${opts.port}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  while (!(await listening(opts.port))) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`caddy did not start (exit ${proc.exitCode}): ${(await readFile(log, "utf8").catch(() => "")).slice(-2000)}`);
    }
    await Bun.sleep(100);
  }
  return {
    url,
    port: opts.port,
    proc,
    async stop() {
      proc.kill("SIGTERM");
      if ((await Promise.race([proc.exited, Bun.sleep(10_000).then(() => "late")])) === "late") proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}
