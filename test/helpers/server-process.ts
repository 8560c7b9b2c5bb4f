/**
 * The real server as an operator runs it (`bun server/main.ts`) on embedded
 * engines in a temp DATA_DIR and a free port, for browser tests that need the
 * whole product: returns its origin, the admin key it generated, and a stop.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, until } from "./browser.ts";

export async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

export interface ServerProcess {
  base: string;
  adminKey: string;
  stop(): Promise<void>;
}

/** `extra` adds to (or overrides) the server's environment, e.g. TRUST_PROXY or OWNER_EMAIL. */
export async function startServer(dir: string, extra: Record<string, string> = {}): Promise<ServerProcess> {
  // Embedded engines whatever the outer test run uses: no DATABASE_URL, CLICKHOUSE_URL, S3 or ADMIN_KEY.
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !/^(DATABASE_URL|CLICKHOUSE_URL|REDIS_URL|ADMIN_KEY|PUBLIC_URL|S3_)/.test(k)) env[k] = v;
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    Object.assign(env, { DATA_DIR: join(dir, "data"), PORT: String(port), HOST: "127.0.0.1", WEBHOOK_ALLOW_PRIVATE: "1", LOG_LEVEL: "warn" }, extra);
    const server = Bun.spawn([join(ROOT, "node_modules/.bin/bun"), "server/main.ts"], {
      cwd: ROOT,
      env,
      stdout: Bun.file(join(dir, "server.log")),
      stderr: Bun.file(join(dir, "server.err")),
    });
    let exited = false;
    void server.exited.then(() => {
      exited = true;
    });
    await until(async () => exited || (await fetch(`${base}/health`).catch(() => undefined))?.ok, 120_000, 250);
    // Another process can take the probed port before the server binds it: the server exits, and the next attempt probes another.
    if (exited) {
      if (attempt < 3) continue;
      throw new Error(`the server exited at start: ${readFileSync(join(dir, "server.err"), "utf8").slice(-2000)}`);
    }
    return {
      base,
      adminKey: readFileSync(join(dir, "data", "admin.key"), "utf8").trim(),
      async stop() {
        server.kill("SIGTERM");
        const stopped = await Promise.race([server.exited.then(() => true), Bun.sleep(10_000).then(() => false)]);
        if (!stopped) server.kill("SIGKILL");
      },
    };
  }
}

/** What the first start printed: the first owner's email and password, and the Default workspace's token. */
export async function firstStart(dir: string): Promise<{ email: string; password: string; token: string }> {
  const printed = (await until(() => {
    const log = readFileSync(join(dir, "server.log"), "utf8");
    return log.includes("Password:") ? log : undefined;
  }, 20_000))!;
  return {
    email: /Email: +(\S+)/.exec(printed)![1]!,
    password: /Password: (\S+)/.exec(printed)![1]!,
    token: /FRAMELINE_TOKEN=(\S+)/.exec(printed)![1]!,
  };
}
