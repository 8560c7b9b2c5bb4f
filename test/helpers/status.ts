import type { TestApp } from "./app.ts";

/** Polls a video's status read until it leaves `processing` (bounded); answers the status it settled on. */
export async function settledStatus(app: TestApp, token: string, videoId: number, timeoutMs = 90_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const status: string = (await app.call("GET", `/api/v1/videos/${videoId}/status`, { token })).body.status;
    if (status !== "processing" || Date.now() > until) return status;
    await Bun.sleep(200);
  }
}
