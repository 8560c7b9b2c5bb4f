import { read, write } from "../browser/storage.ts";

const KEY = "fl_landing";
const UTM = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"];
const host = (url: string) => {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return "";
  }
};

/**
 * What a `load` tells the breakdowns about the page: its host and path, and the
 * session's landing context (the referrer's host and the `utm_*` parameters),
 * captured once per session (sessionStorage, like the session id) so the second
 * page of a visit keeps the source that brought the viewer. A referrer on the
 * page's own host is internal navigation, not a source.
 */
export function pageContext(loc: Location = location, referrer = document.referrer): Record<string, string> {
  let landing: Record<string, string> | null = null;
  try {
    landing = JSON.parse(read("sessionStorage", KEY) || "null");
  } catch {
    /* unreadable: capture again */
  }
  if (!landing || typeof landing !== "object") {
    landing = {};
    const ref = host(referrer);
    if (ref && ref !== loc.hostname.toLowerCase()) landing.referrer_host = ref;
    const params = new URLSearchParams(loc.search);
    for (const k of UTM) {
      const v = params.get(k)?.trim();
      if (v) landing[k] = v.slice(0, 100);
    }
    write("sessionStorage", KEY, JSON.stringify(landing));
  }
  return { page_host: loc.hostname.toLowerCase(), page_path: loc.pathname.slice(0, 100), ...landing };
}
