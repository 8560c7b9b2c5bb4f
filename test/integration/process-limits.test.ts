/**
 * Issue 14 over real sockets, against the process `npm start` runs: what Bun's
 * HTTP layer sees before the app does (a 100 KB URL, a Content-Length that
 * lies, a body that stops) answers in docs/api.md's shapes and in seconds, and
 * SIGTERM stops the process even with a request still in flight.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, killAll, start, stop } from "../helpers/process.ts";
import { nested } from "../helpers/schema-arbitrary.ts";

let dataDir: string | undefined;

afterAll(async () => {
  await killAll();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface RawAnswer {
  status: number;
  body: any;
  ms: number;
}

/** Writes `head` (and `body`) on a fresh connection and reads the answer; keeps the connection open until then. */
function raw(port: number, head: string, body = "", timeoutMs = 20_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket: Socket = connect(port, "127.0.0.1");
    let data = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer in ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on("data", (chunk) => {
      data += chunk;
      const end = data.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(data.slice(0, end))?.[1] ?? 0);
      if (data.length - end - 4 < length) return;
      clearTimeout(timer);
      socket.destroy();
      const text = data.slice(end + 4, end + 4 + length);
      resolve({ status: Number(data.slice(9, 12)), body: text ? JSON.parse(text) : undefined, ms: performance.now() - started });
    });
    socket.on("error", reject);
    socket.write(head + body);
  });
}

test("URL, Content-Length and stalled bodies answer in the spec's shape within seconds; SIGTERM stops the process with a request in flight", async () => {
  dataDir = await mkdtemp(join(tmpdir(), "frameline-limits-"));
  const port = await freePort();
  const server = start(dataDir, port, { BODY_TIMEOUT_MS: "1000" });
  const [, token] = await server.waitFor(/FRAMELINE_TOKEN=(\S+)/, 120_000);
  const auth = `Authorization: Bearer ${token}\r\n`;

  const longUrl = await raw(port, `GET /api/v1/videos?search=${"a".repeat(100_000)} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`);
  expect([longUrl.status, longUrl.body?.error?.code]).toEqual([414, "URI_TOO_LONG"]);

  const lying = await raw(
    port,
    `POST /v1/event HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 2147483648\r\n\r\n`,
    '{"event":"x"}',
  );
  expect([lying.status, lying.body?.error]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
  expect(lying.ms).toBeLessThan(2_000);

  const short = await raw(port, `POST /api/v1/videos HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n`, '{"title":');
  expect([short.status, short.body?.error?.code]).toEqual([400, "INVALID_PAYLOAD"]);
  expect(short.ms).toBeLessThan(5_000);

  const created = await fetch(`http://127.0.0.1:${port}/api/v1/videos`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ title: "limits" }),
  });
  const { video } = (await created.json()) as { video: { id: number } };
  const draft = await fetch(`http://127.0.0.1:${port}/api/v1/videos/${video.id}/draft`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ style_options: { zz: nested(5_000) } }),
  });
  expect(draft.status).toBe(422);
  const read = await fetch(`http://127.0.0.1:${port}/api/v1/videos/${video.id}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(read.status).toBe(200);

  // A request whose body never completes is still open when SIGTERM arrives.
  const hanging = connect(port, "127.0.0.1");
  hanging.on("error", () => {});
  hanging.write(`POST /api/v1/videos HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n0123456789`);
  await Bun.sleep(200);
  const started = performance.now();
  const code = await stop(server, 30_000);
  hanging.destroy();
  expect(code).toBe(0);
  expect(performance.now() - started).toBeLessThan(25_000);
}, 240_000);
