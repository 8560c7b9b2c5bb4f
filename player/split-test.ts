/**
 * Serving a split test on a page (server/api/split-tests). The events host
 * answers which variation this device gets (`POST /v1/split-test`: sticky per
 * device, by the test's weights, and recorded on the viewer's session so its
 * events carry the variation); the page then plays that variation's own player:
 * the test's divs (`data-split-test="<test code>"`, and in the control's entry
 * the control's own `data-video` divs) take the variation's video code, and the
 * variation's entry script is loaded. One answer per test and page, so the
 * test's snippet and the control's entry ask once. When the events host does not
 * answer in time, the control plays.
 *
 * @example
 *   // the test's snippet script (player/split-test-entry.ts)
 *   serveSplitTest(__FL_SPLIT_TEST__, scriptUrl());
 *   // the control's entry while its test is not ended (player/entry.ts)
 *   serveSplitTest(__FL_SPLIT_TEST__, scriptUrl(), { code: __FL_CONFIG__.video.code, boot });
 */
import { frameline } from "../browser/frameline.ts";
import type { SplitTestEmbed } from "../contract/player-config.ts";
import { locate } from "./locate.ts";

interface Served {
  video_code: string;
  script_url: string;
}

/** Long enough for a slow network, short enough that a viewer is not left without a player. */
const ANSWER_TIMEOUT_MS = 4000;

interface PageState {
  answers: Record<string, Promise<Served>>;
  scripts: Record<string, true>;
}

/** Shared by every bundle on the page (each has its own copy of this module). */
function pageState(): PageState {
  const w = window as unknown as Record<symbol, PageState | undefined>;
  const key = Symbol.for("frameline.split-tests");
  return (w[key] ??= { answers: {}, scripts: {} });
}

async function ask(test: SplitTestEmbed, script: string): Promise<Served> {
  const eventsUrl = (test.events_url || locate(script).events).replace(/\/$/, "");
  // The player's own ids: the session the answer is recorded on is the one its batches carry.
  const page = frameline({ url: `${eventsUrl}/v1/track`, workspaceCode: test.workspace_code }, "player");
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ANSWER_TIMEOUT_MS);
  try {
    const res = await fetch(`${eventsUrl}/v1/split-test`, {
      method: "POST",
      // text/plain: a CORS simple request, no preflight round trip.
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ workspace_code: test.workspace_code, split_test: test.code, session_id: page.getSessionId(), device_id: page.getDeviceId() }),
      credentials: "omit",
      signal: abort.signal,
    });
    const served = (await res.json()) as Partial<Served>;
    if (!res.ok || typeof served.video_code !== "string" || typeof served.script_url !== "string") throw new Error(`split test answered ${res.status}`);
    return { video_code: served.video_code, script_url: served.script_url };
  } finally {
    clearTimeout(timer);
  }
}

function loadScript(url: string): void {
  const state = pageState();
  if (state.scripts[url]) return;
  state.scripts[url] = true;
  const script = document.createElement("script");
  script.async = true;
  script.src = url;
  document.head.appendChild(script);
}

/**
 * Plays the variation this device is served. `script`: the URL of the running
 * script, where the events host and the control's script are found. `own`: the control's entry, which
 * boots itself when the control is served instead of loading its own script again.
 * Never throws into the page.
 */
export function serveSplitTest(test: SplitTestEmbed, script: string, own?: { code: string; boot(): void }): void {
  const state = pageState();
  const answer = (state.answers[test.code] ??= ask(test, script).catch((e) => {
    console.warn("frameline: split test unavailable, playing the control", e);
    // Beside this script, with the same query (the snippet's locations), unless a URL was baked in.
    const control = new URL(test.control.script_url, script);
    if (!/^[a-z]+:/i.test(test.control.script_url)) control.search = new URL(script).search;
    return { video_code: test.control.code, script_url: control.href };
  }));
  answer.then((served) => {
    if (own && served.video_code === own.code) return own.boot();
    const retarget = () => {
      const selector =
        `.frameline-player[data-split-test="${CSS.escape(test.code)}"]` + (own ? `, .frameline-player[data-video="${CSS.escape(own.code)}"]` : "");
      document.querySelectorAll(selector).forEach((el) => {
        if (!el.hasAttribute("data-fl-mounted")) el.setAttribute("data-video", served.video_code);
      });
    };
    retarget();
    // The async script may run before the page's divs exist; the served player mounts at DOMContentLoaded too, after this.
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", retarget, { once: true });
    loadScript(served.script_url);
  });
}
