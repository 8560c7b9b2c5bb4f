/**
 * deploy/ (README "Production") says what it must: the image is built on package.json's
 * Bun, runs as a user with Debian's ffmpeg and a /ready health check; compose runs two
 * apps and a worker over every engine with only settings server/config.ts reads; Caddy
 * balances over the apps and routes every path they answer. No Docker engine runs here:
 * .ci/run also has `docker-compose config` and `caddy validate` read the files.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { testApp, type TestApp } from "../helpers/app.ts";

const ROOT = join(import.meta.dir, "..", "..");
const read = (path: string) => Bun.file(join(ROOT, path)).text();

// ---- the Dockerfile, read as Docker reads it ------------------------------------

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  image: string;
  name?: string;
  instructions: Instruction[];
}

/** Stages of a Dockerfile: comments dropped, `\` continuations joined, one instruction a line. */
function dockerfileStages(text: string): Stage[] {
  const lines = text
    .split("\n")
    .filter((l) => !/^\s*#/.test(l))
    .join("\n")
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    const instruction = { op: op!.toUpperCase(), args: args!.replace(/\s+/g, " ") };
    if (instruction.op === "FROM") {
      const [, image, name] = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args)!;
      stages.push({ image: image!, name, instructions: [] });
    } else stages.at(-1)?.instructions.push(instruction);
  }
  return stages;
}

const all = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op);

/** `KEY=value KEY2=value` (or the old `KEY value`) of ENV instructions. */
function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of all(stage, "ENV")) {
    if (!args.includes("=")) {
      const [key, ...value] = args.split(" ");
      env[key!] = value.join(" ");
    } else for (const [, key, value] of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[key!] = value!.replace(/^"|"$/g, "");
  }
  return env;
}

/** The names server/config.ts reads from the environment (`env.NAME`, `integer(env, "NAME", …)` and the like). */
async function configNames(): Promise<Set<string>> {
  const source = await read("server/config.ts");
  const names = new Set<string>();
  for (const [, name] of source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(name!);
  for (const [, name] of source.matchAll(/\(env, "([A-Z][A-Z0-9_]+)"/g)) names.add(name!);
  return names;
}

describe("deploy/Dockerfile", async () => {
  const stages = dockerfileStages(await read("deploy/Dockerfile"));
  const final = stages.at(-1)!;
  const bun = (JSON.parse(await read("package.json")) as { dependencies: Record<string, string> }).dependencies.bun!;

  test("multi-stage: dependencies installed in a build stage the final stage copies from", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const build = stages[0]!;
    expect(build.name).toBeString();
    expect(all(build, "RUN").some((r) => /\bbun install\b.*--production|\bnpm ci\b/.test(r.args))).toBe(true);
    expect(all(final, "COPY").some((c) => c.args.includes(`--from=${build.name}`))).toBe(true);
    expect(all(final, "RUN").some((r) => /\b(bun|npm) install\b|\bnpm ci\b/.test(r.args))).toBe(false);
  });

  test(`every stage is the official Bun image of package.json's bun (${bun}), the final one a Debian variant`, () => {
    expect(bun).toMatch(/^\d+\.\d+\.\d+$/);
    for (const stage of stages) expect(stage.image).toMatch(new RegExp(`^oven/bun:${bun.replace(/\./g, "\\.")}(-slim|-debian)?$`));
    expect(final.image).not.toMatch(/alpine|distroless/);
  });

  test("ffmpeg from Debian, without recommended packages, the apt lists removed in the same layer", () => {
    const apt = all(final, "RUN").find((r) => /apt-get install/.test(r.args));
    expect(apt?.args).toMatch(/apt-get install -y --no-install-recommends ffmpeg\b/);
    expect(apt?.args).toContain("apt-get update");
    expect(apt?.args).toContain("rm -rf /var/lib/apt/lists/*");
  });

  test("the final stage runs as a user who is not root, listens on 8080 on every address, keeps DATA_DIR in /data", () => {
    const users = all(final, "USER").map((u) => u.args);
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
    expect(all(final, "EXPOSE").map((e) => e.args)).toContain("8080");
    expect(envOf(final)).toMatchObject({ HOST: "0.0.0.0", DATA_DIR: "/data" });
    expect(envOf(final).PORT ?? "8080").toBe("8080");
  });

  test("a HEALTHCHECK asks /ready, and the command is the app's entry point", () => {
    const [check] = all(final, "HEALTHCHECK");
    expect(check?.args).toContain("/ready");
    const [cmd] = all(final, "CMD");
    const argv = JSON.parse(cmd!.args) as string[];
    expect(argv[0]).toBe("bun");
    expect(argv.at(-1)).toBe("server/main.ts");
  });

  test("every ENV it sets is a setting server/config.ts reads", async () => {
    const names = await configNames();
    for (const stage of stages) for (const key of Object.keys(envOf(stage))) expect(names.has(key), key).toBe(true);
  });

  test(".dockerignore keeps out the host's modules, git, tests and secrets", async () => {
    const ignored = (await read(".dockerignore")).split("\n").map((l) => l.trim());
    for (const entry of ["node_modules", ".git", "test", "**/.env"]) expect(ignored).toContain(entry);
  });
});

// ---- compose.yaml ----------------------------------------------------------------

interface Service {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { disable?: boolean };
}

describe("deploy/compose.yaml", async () => {
  // The yaml package is in node_modules (a dependency of the docs tooling), not in package.json.
  const yamlThere = existsSync(join(ROOT, "node_modules", "yaml", "package.json"));
  const { parse } = yamlThere ? await import("yaml") : { parse: () => ({ services: {}, volumes: {} }) };
  const compose = parse(await read("deploy/compose.yaml"), { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
  const services = compose.services;
  const ours = Object.entries(services).filter(([, s]) => s.build !== undefined || s.image === "frameline:local");
  const command = (s: Service) => (Array.isArray(s.command) ? s.command.join(" ") : (s.command ?? ""));
  const apps = ours.filter(([, s]) => !command(s) || command(s).includes("server/main.ts"));
  const workers = ours.filter(([, s]) => command(s).includes("server/worker.ts"));
  const imageOf = (name: string) => Object.values(services).find((s) => s.image?.startsWith(name))?.image;
  const serviceWith = (prefix: string) => Object.entries(services).find(([, s]) => s.image?.startsWith(prefix))?.[0];

  test("node_modules/yaml is there to read it", () => {
    expect(yamlThere).toBe(true);
  });

  test("two apps that leave jobs to the worker, and a worker", () => {
    expect(apps.map(([name]) => name)).toHaveLength(2);
    for (const [, app] of apps) expect(app.environment?.IN_PROCESS_WORKERS).toBe("0");
    expect(workers.length).toBeGreaterThanOrEqual(1);
    // A worker has no HTTP server: the image's /ready check must not mark it unhealthy.
    for (const [, worker] of workers) expect(worker.healthcheck?.disable).toBe(true);
  });

  test("every process has the same PUBLIC_URL and ADMIN_KEY, and only apps are behind the proxy (no port of theirs published)", () => {
    const publicUrls = new Set(ours.map(([, s]) => s.environment?.PUBLIC_URL));
    expect([...publicUrls]).toHaveLength(1);
    expect([...publicUrls][0]).toStartWith("https://");
    expect(new Set(ours.map(([, s]) => s.environment?.ADMIN_KEY)).size).toBe(1);
    for (const [, s] of ours) expect(s.ports).toBeUndefined();
  });

  test("every engine: PostgreSQL 16, a ClickHouse server, Redis 7, MinIO with a one-shot bucket service (mc), Caddy", () => {
    expect(imageOf("postgres:")).toMatch(/^postgres:16\b/);
    expect(imageOf("clickhouse/clickhouse-server:")).toMatch(/^clickhouse\/clickhouse-server:\d+\.\d+/);
    expect(imageOf("redis:")).toMatch(/^redis:7\b/);
    expect(imageOf("quay.io/minio/minio:") ?? imageOf("minio/minio:")).toBeString();
    expect(imageOf("caddy:")).toBeString();
    const mc = Object.values(services).find((s) => /minio\/mc:/.test(s.image ?? ""));
    expect(mc).toBeDefined();
    expect(JSON.stringify(mc!.depends_on)).toContain(serviceWith("quay.io/minio/minio:")!);
    const bucketService = Object.entries(services).find(([, s]) => s === mc)![0];
    for (const [, s] of ours) expect((s.depends_on as Record<string, { condition: string }>)[bucketService]?.condition).toBe("service_completed_successfully");
    expect(services[serviceWith("caddy:")!]!.volumes).toContain("./Caddyfile:/etc/caddy/Caddyfile:ro");
    for (const volume of ["postgres-data", "clickhouse-data", "minio-data", "caddy-data"]) expect(Object.keys(compose.volumes)).toContain(volume);
  });

  test("each process reaches every engine by its service name, S3 in path style", () => {
    const host = (url: string | undefined) => new URL((url ?? "").replace(/\$\{[^}]*\}/g, "x")).hostname;
    for (const [name, s] of ours) {
      const env = s.environment ?? {};
      expect(host(env.DATABASE_URL), name).toBe(serviceWith("postgres:")!);
      expect(host(env.CLICKHOUSE_URL), name).toBe(serviceWith("clickhouse/clickhouse-server:")!);
      expect(host(env.REDIS_URL), name).toBe(serviceWith("redis:")!);
      expect(host(env.S3_ENDPOINT), name).toBe(serviceWith("quay.io/minio/minio:")!);
      expect(env.S3_BUCKET, name).toBeString();
      expect(env.S3_FORCE_PATH_STYLE, name).toBe("1");
    }
  });

  test("every setting given to a Frameline process is one server/config.ts reads", async () => {
    const names = await configNames();
    expect(names.has("PUBLIC_URL")).toBe(true);
    const unknown = ours.flatMap(([name, s]) =>
      Object.keys(s.environment ?? {})
        .filter((key) => !names.has(key))
        .map((key) => `${name}: ${key}`),
    );
    expect(unknown).toEqual([]);
  });
});

// ---- the Caddyfile ---------------------------------------------------------------

describe("deploy/Caddyfile", async () => {
  const caddyfile = (await read("deploy/Caddyfile")).replace(/#.*$/gm, "");
  const compose = await read("deploy/compose.yaml");
  let t: TestApp;

  beforeAll(async () => {
    t = await testApp();
  }, 60_000);

  test("the site is PUBLIC_URL's host, from the same variable compose uses", () => {
    expect(caddyfile).toContain("{$FRAMELINE_DOMAIN:localhost} {");
    expect(compose).toMatch(/PUBLIC_URL: https:\/\/\$\{FRAMELINE_DOMAIN:-localhost\}\n/);
  });

  test("round robin over the two apps, each checked on /ready", () => {
    expect(caddyfile).toMatch(/reverse_proxy app1:8080 app2:8080 \{/);
    expect(caddyfile).toMatch(/lb_policy round_robin/);
    expect(caddyfile).toMatch(/health_uri \/ready/);
  });

  test("every route the app answers is sent to the apps, but /metrics (scraped from each app, not through the balancer)", () => {
    const matcher = /@app path (.+)/.exec(caddyfile)![1]!.trim().split(/\s+/);
    const routed = (path: string) => matcher.some((m) => (m.endsWith("*") ? path.startsWith(m.slice(0, -1)) : path === m));
    const paths = [...new Set((t.app.routes as { path: string }[]).map((r) => r.path.replace(/:\w+/g, "x").replace(/\*$/, "x")))];
    expect(paths.length).toBeGreaterThan(40);
    expect(paths.filter((p) => !routed(p))).toEqual(["/metrics"]);
    for (const path of ["/api/v1/videos", "/admin/v1/workspaces", "/v1/event", "/cdn/p/x.js", "/media/videos/x/index.m3u8", "/dashboard", "/t.js", "/ready"])
      expect(routed(path), path).toBe(true);
  });
});
