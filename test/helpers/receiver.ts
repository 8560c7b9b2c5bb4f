/**
 * A real local HTTP receiver (Bun.serve on 127.0.0.1) for webhook tests and
 * benches: records every request, and answers with a chosen status, headers
 * (e.g. Retry-After), body or delay, set per test or per request.
 */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
  at: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Answer with a body that never ends (1 KB every 5 ms until the client goes away). */
  endless?: boolean;
}

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Distinct `webhook-id`s seen, and how many requests repeated one. */
  ids: Set<string>;
  duplicates(): number;
  /** The reply for the next requests (default 200 "ok"); a function decides per request. */
  respond(reply: Reply | ((request: ReceivedRequest) => Reply)): void;
  /** Resolves when `count` requests have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  reset(): void;
  stop(): Promise<void>;
}

export function startReceiver(options: { record?: boolean } = {}): Receiver {
  const record = options.record ?? true;
  let reply: Reply | ((request: ReceivedRequest) => Reply) = { status: 200 };
  const requests: ReceivedRequest[] = [];
  const ids = new Set<string>();
  let count = 0;
  let dup = 0;
  let waiters: { count: number; resolve: () => void }[] = [];

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = await request.text();
      const url = new URL(request.url);
      const received: ReceivedRequest = {
        method: request.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(request.headers),
        body,
        json: undefined,
        at: Date.now(),
      };
      try {
        received.json = JSON.parse(body);
      } catch {}
      const id = received.headers["webhook-id"];
      if (id !== undefined) {
        if (ids.has(id)) dup++;
        else ids.add(id);
      }
      if (record) requests.push(received);
      count++;
      const chosen = typeof reply === "function" ? reply(received) : reply;
      waiters = waiters.filter((w) => (count >= w.count ? (w.resolve(), false) : true));
      if (chosen.delayMs) await Bun.sleep(chosen.delayMs);
      if (chosen.endless) {
        const chunk = new TextEncoder().encode("x".repeat(1024));
        let timer: ReturnType<typeof setInterval> | undefined;
        const stream = new ReadableStream({
          start(controller) {
            timer = setInterval(() => {
              try {
                controller.enqueue(chunk);
              } catch {
                clearInterval(timer);
              }
            }, 5);
          },
          cancel() {
            clearInterval(timer);
          },
        });
        return new Response(stream, { status: chosen.status ?? 200, headers: chosen.headers });
      }
      return new Response(chosen.body ?? "ok", { status: chosen.status ?? 200, headers: chosen.headers });
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port!,
    requests,
    ids,
    duplicates: () => dup,
    respond(next) {
      reply = next;
    },
    waitFor(target, timeoutMs = 10_000) {
      if (count >= target) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${count} of ${target} requests`)), timeoutMs);
        waiters.push({ count: target, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    reset() {
      requests.length = 0;
      ids.clear();
      count = 0;
      dup = 0;
    },
    async stop() {
      await server.stop(true);
    },
  };
}

/**
 * An independent Standard Webhooks verifier written from the specification
 * (github.com/standard-webhooks/standard-webhooks, "Verifying webhooks"), on
 * WebCrypto rather than the server's node:crypto signer:
 *   signed content = `${webhook-id}.${webhook-timestamp}.${body}`
 *   signature      = base64(HMAC-SHA256(key, signed content)), sent as `v1,<sig>`
 *                    (a header may carry several, space separated)
 *   key            = base64-decoded part after `whsec_`; our rule for any other
 *                    secret is its UTF-8 bytes
 * and the timestamp must be within the tolerance (5 minutes) of "now".
 */
export async function verifyStandardWebhook(
  secret: string,
  headers: Record<string, string>,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  const keyBytes = secret.startsWith("whsec_") ? Uint8Array.from(atob(secret.slice(6)), (c) => c.charCodeAt(0)) : new TextEncoder().encode(secret);
  const key = await crypto.subtle.importKey("raw", keyBytes as Uint8Array<ArrayBuffer>, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  for (const entry of signatures.split(" ")) {
    const [version, encoded] = entry.split(",", 2);
    if (version !== "v1" || !encoded) continue;
    let sig: Uint8Array<ArrayBuffer>;
    try {
      sig = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
    } catch {
      continue;
    }
    if (await crypto.subtle.verify("HMAC", key, sig, new TextEncoder().encode(`${id}.${timestamp}.${body}`))) return true;
  }
  return false;
}
