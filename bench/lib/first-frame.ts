/**
 * Play intent → first frame in Chromium, shared by the player benches: a fresh browser
 * context per run (cold cache), optionally under a throttled network profile, with the
 * page's bytes fetched before play intent.
 */
import type { Browser } from "playwright-core";

export const PROFILES = {
  loopback: null,
  // ~fast 4G: 9 Mbit/s down, 40 ms RTT.
  throttled: { offline: false, latency: 40, downloadThroughput: 9e6 / 8, uploadThroughput: 1.5e6 / 8 },
} as const;

/**
 * Instrumentation shared by every page: t0 at the pointer press; the first frame on screen: the
 * first one presented after it (requestVideoFrameCallback), or, when a frame was already decoded
 * under the poster (a stream attached ahead: turbo), the first paint after playback begins,
 * which drops the poster for it; and when the picture moves (the first frame past time 0).
 */
const PROBE = `
addEventListener("pointerdown", () => { window.__t0 = performance.now(); }, true);
addEventListener("play", (e) => {
  const v = e.target;
  if (window.__armed) return; window.__armed = 1;
  if (v.readyState >= 2) v.addEventListener("playing", () => requestAnimationFrame(() => { window.__first = performance.now(); }), { once: true });
  else v.requestVideoFrameCallback(() => { window.__first = performance.now(); });
  const moving = (now, m) => (m.mediaTime > 0 ? (window.__moving = performance.now()) : v.requestVideoFrameCallback(moving));
  v.requestVideoFrameCallback(moving);
}, true);`;

function bytesBeforePlay(): { total: number; scripts: number } {
  const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
  const res = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
  const scripts = res.filter((r) => r.initiatorType === "script" || /\.m?js$/.test(new URL(r.name).pathname)).reduce((n, r) => n + r.transferSize, 0);
  return { total: nav.transferSize + res.reduce((n, r) => n + r.transferSize, 0), scripts };
}

export async function measure(browser: Browser, url: string, click: string, profile: keyof typeof PROFILES) {
  const ctx = await browser.newContext({ viewport: { width: 960, height: 640 } });
  try {
    const p = await ctx.newPage();
    await p.addInitScript(PROBE);
    const conditions = PROFILES[profile];
    if (conditions) {
      const cdp = await ctx.newCDPSession(p);
      await cdp.send("Network.enable");
      await cdp.send("Network.emulateNetworkConditions", conditions);
    }
    await p.goto(url, { waitUntil: "networkidle" });
    await p.waitForSelector(click);
    const bytes = await p.evaluate(bytesBeforePlay);
    await p.click(click);
    await p.waitForFunction(() => (window as any).__first > 0 && (window as any).__moving > 0, null, { timeout: 20000 });
    const ms = await p.evaluate(() => (window as any).__first - (window as any).__t0);
    const moving = await p.evaluate(() => (window as any).__moving - (window as any).__t0);
    return { ms, moving, bytes };
  } finally {
    await ctx.close();
  }
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
