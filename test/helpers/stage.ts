/**
 * The whole product for browser tests after real deploys: the real server
 * (`bun server/main.ts`, embedded engines, a temp DATA_DIR), Chromium, a webhook
 * receiver subscribed to every docs/api.md event, a customer site on another origin,
 * and one workspace with a token.
 */
import { expect } from "bun:test";
import { rmSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, tempDir, until } from "./browser.ts";
import { startReceiver, type Receiver } from "./receiver.ts";
import { startServer } from "./server-process.ts";
import { SPEC_EVENTS } from "./spec.ts";

export type Video = { id: number; code: string };
export type Answer = { status: number; body: any };

export interface Stage {
  base: string;
  adminKey: string;
  browser: Browser;
  receiver: Receiver;
  ws: { id: number; code: string; token: string };
  /** A call with the workspace's token (or another), the body parsed when it is JSON. */
  api(method: string, path: string, body?: unknown, token?: string): Promise<Answer>;
  /** A call to the operator API (`/admin/v1` + path). */
  admin(method: string, path: string, body?: unknown): Promise<Answer>;
  /** A video with `file` uploaded and encoded (the ready state of docs/api.md "Status object"). */
  readyVideo(title: string, file: string): Promise<Video>;
  /** The events read of docs/api.md "Analytics reads". */
  eventsRead(video: Video | { id: number }): Promise<{ event_type: string; event: string | null }[]>;
  /** Serves `body` on the customer site at `path`; answers its URL. */
  serve(path: string, body: string, type?: string): string;
  stop(): Promise<void>;
}

export async function startStage(name: string, scopes = ["videos:read", "videos:write", "analytics:read", "webhooks:write"]): Promise<Stage> {
  const dir = tempDir(`fl-${name.toLowerCase()}-`);
  const [server, browser] = await Promise.all([startServer(dir), launchBrowser()]);
  const receiver = startReceiver();
  const files = new Map<string, { body: string; type: string }>();
  const site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const file = files.get(new URL(req.url).pathname);
      return file ? new Response(file.body, { headers: { "content-type": file.type } }) : new Response("not found", { status: 404 });
    },
  });
  const siteUrl = `http://127.0.0.1:${site.port}`;
  const stage: Stage = {
    base: server.base,
    adminKey: server.adminKey,
    browser,
    receiver,
    ws: { id: 0, code: "", token: "" },
    async api(method, path, body, token = stage.ws.token) {
      const res = await fetch(server.base + path, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: res.status, body: parsed };
    },
    admin: (method, path, body) => stage.api(method, `/admin/v1${path}`, body, server.adminKey),
    async readyVideo(title, file) {
      const created = await stage.api("POST", "/api/v1/videos", { title });
      expect(created.status).toBe(201);
      const video = created.body.video as Video;
      const form = new FormData();
      form.append("orientation", "landscape");
      form.append("file", Bun.file(file), "clip.mp4");
      const up = await fetch(`${server.base}/api/v1/videos/${video.id}/upload`, {
        method: "POST",
        headers: { Authorization: `Bearer ${stage.ws.token}` },
        body: form,
      });
      expect(up.status).toBeLessThan(300);
      await until(async () => (await stage.api("GET", `/api/v1/videos/${video.id}/status`)).body.status === "ready", 90_000, 200);
      return video;
    },
    eventsRead: async (video) => (await stage.api("GET", `/api/v1/videos/${video.id}/analytics/events?per_page=500`)).body.events.data,
    serve(path, body, type = "text/html") {
      files.set(path, { body, type });
      return siteUrl + path;
    },
    async stop() {
      await browser.close();
      await receiver.stop();
      site.stop(true);
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const created = await stage.admin("POST", "/workspaces", { name });
  const minted = await stage.admin("POST", `/workspaces/${created.body.workspace.id}/tokens`, { name: "e2e", scopes });
  stage.ws = { id: created.body.workspace.id, code: created.body.workspace.code, token: minted.body.secret };
  const hook = await stage.api("POST", "/api/v1/webhooks", { name, url: `${receiver.url}/hook`, events: SPEC_EVENTS, secret: `${name}-e2e-secret-0123456789` });
  expect(hook.status).toBe(201);
  return stage;
}

/** Collects the errors a page throws. */
export function watchErrors(p: Page): string[] {
  const errors: string[] = [];
  p.on("pageerror", (e) => errors.push(String(e)));
  return errors;
}
