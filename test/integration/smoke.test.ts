/**
 * The newcomer's walkthrough against the real process: `bun server/main.ts` on
 * embedded defaults (PGlite + chDB in DATA_DIR), real HTTP, the real CLI.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, env, freePort, killAll, ROOT, start, stop } from "../helpers/process.ts";

let dataDir: string | undefined;

afterAll(async () => {
  await killAll();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function cli(args: string[], extra: Record<string, string>): Promise<{ code: number; json: any; stdout: string; stderr: string }> {
  const proc = Bun.spawn([BUN, "server/cli.ts", ...args], { cwd: ROOT, env: env(extra), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {}
  return { code, json, stdout, stderr };
}

test("start, walk through the API and the CLI, stop cleanly, restart without a new token", async () => {
  dataDir = await mkdtemp(join(tmpdir(), "frameline-smoke-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = start(dataDir, port);
  const [, token] = await server.waitFor(/FRAMELINE_TOKEN=(flt_[A-Za-z0-9_-]+)/, 40_000);
  expect(server.output()).toContain(`listening on ${base}`);
  const auth = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };

  const health = await fetch(`${base}/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).toEqual({ ok: true });

  const created = await fetch(`${base}/api/v1/videos`, { method: "POST", headers: auth, body: JSON.stringify({ title: "My first video" }) });
  expect(created.status).toBe(201);
  const { video, status } = (await created.json()) as any;
  expect(video.title).toBe("My first video");
  expect(status.status).toBe("waiting_for_upload");

  const read = await fetch(`${base}/api/v1/videos/${video.id}`, { headers: auth });
  expect(read.status).toBe(200);
  expect(((await read.json()) as any).video.code).toBe(video.code);

  const list = await fetch(`${base}/api/v1/videos`, { headers: auth });
  expect(list.status).toBe(200);
  expect(((await list.json()) as any).data.map((v: any) => v.id)).toContain(video.id);

  // The CLI finds the server through PUBLIC_URL and the operator key in DATA_DIR/admin.key.
  const cliEnv = { PUBLIC_URL: base, DATA_DIR: dataDir };
  const ws = await cli(["workspace", "create", "--name", "Second"], cliEnv);
  expect(ws.code).toBe(0);
  const workspaceId = ws.json.workspace.id;
  expect(workspaceId).toBeInteger();
  expect(ws.json.workspace.name).toBe("Second");
  expect(ws.json.legacy_key).toMatch(/^flk_/);

  const minted = await cli(["token", "create", "--workspace", String(workspaceId), "--scopes", "videos:read"], cliEnv);
  expect(minted.code).toBe(0);
  expect(minted.json.token.scopes).toEqual(["videos:read"]);
  const secret = minted.json.secret as string;
  expect(secret).toMatch(/^flt_/);
  const withSecret = await fetch(`${base}/api/v1/videos`, { headers: { Authorization: `Bearer ${secret}` } });
  expect(withSecret.status).toBe(200);
  // It belongs to the new workspace: the first workspace's video is not there.
  expect(((await withSecret.json()) as any).data).toEqual([]);
  const writeWithReadToken = await fetch(`${base}/api/v1/videos`, {
    method: "POST",
    headers: { "X-API-Key": secret, "Content-Type": "application/json" },
    body: "{}",
  });
  expect(writeWithReadToken.status).toBe(403);

  // A CLI error exits non-zero.
  const bad = await cli(["token", "create", "--workspace", "987654321", "--scopes", "videos:read"], cliEnv);
  expect(bad.code).not.toBe(0);

  expect(await stop(server)).toBe(0);

  // Same DATA_DIR: the data is still there and no new token is printed.
  const again = start(dataDir, port);
  await again.waitFor(/listening on/, 40_000);
  await Bun.sleep(200);
  expect(again.output()).not.toContain("FRAMELINE_TOKEN=");
  const stillThere = await fetch(`${base}/api/v1/videos/${video.id}`, { headers: auth });
  expect(stillThere.status).toBe(200);
  expect(await stop(again)).toBe(0);
}, 120_000);
