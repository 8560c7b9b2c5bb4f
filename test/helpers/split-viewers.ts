/**
 * Simulated viewers of a split test, through the public paths a page uses: the
 * test's embed asks `POST /v1/split-test` which variation to play, then the
 * player's batches go to `POST /v1/collect` with the same session and device ids.
 */
import type { TestApp, TestResponse } from "./app.ts";

export interface Viewer {
  session: string;
  device: string;
}

/** 32 lowercase hex characters, as the browser mints them. */
export const browserId = () => crypto.randomUUID().replace(/-/g, "");

export const newViewer = (): Viewer => ({ session: browserId(), device: browserId() });

/** The variations of a test that serves each video to the same share of viewers (2 videos: 50/50). */
export const evenSplit = (...videoIds: number[]) => videoIds.map((video_id) => ({ video_id, weight: 100 / videoIds.length }));

/** What the test's embed asks before the player loads; throws unless 200. */
export async function served(
  t: TestApp,
  workspaceCode: string,
  testCode: string,
  viewer: Viewer,
): Promise<{ variation_id: number; video_code: string; script_url: string; in_test: boolean }> {
  const res = await t.call("POST", "/v1/split-test", {
    // As the page sends it: JSON as text/plain (no preflight).
    headers: { "Content-Type": "text/plain" },
    body: JSON.stringify({ workspace_code: workspaceCode, split_test: testCode, session_id: viewer.session, device_id: viewer.device }),
  });
  if (res.status !== 200) throw new Error(`split-test answered ${res.status}: ${res.text}`);
  return res.body;
}

/** One player batch of `types` for this viewer on `videoCode`. */
export function collect(t: TestApp, workspaceCode: string, videoCode: string, viewer: Viewer, types: string[]): Promise<TestResponse> {
  const now = Date.now();
  return t.call("POST", "/v1/collect", {
    headers: { "Content-Type": "text/plain" },
    body: JSON.stringify({
      workspace_code: workspaceCode,
      video_code: videoCode,
      session_id: viewer.session,
      device_id: viewer.device,
      events: types.map((type, i) => ({ type, t: now + i, video_time: 0, ...(type === "cta_click" ? { card_index: 0 } : {}) })),
    }),
  });
}

/** Runs `work` over `items`, at most `concurrency` at a time, in order of start. */
export async function inParallel<T, R>(items: T[], concurrency: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return results;
}

/** A seeded pseudo-random generator (mulberry32): the same scenario every run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
