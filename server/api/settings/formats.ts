/**
 * The string formats of the settings registry that a regular expression cannot
 * check alone: CSS selectors (timed events name page elements the player shows
 * or hides), web links and date-times. Pure; registered with TypeBox in
 * validation.ts.
 */
import { createParser } from "css-selector-parser";

/**
 * css-selector-parser (MIT, no dependencies) with the current CSS syntax: it
 * refuses what a browser's `querySelectorAll` throws on (dangling combinators,
 * unknown pseudo-classes, bad identifiers such as `.1a`), and a little more
 * (it is strict about unclosed brackets, which browsers forgive).
 */
const parseSelector = createParser({ syntax: "latest", strict: true });

/** A `)` outside strings with no `(` before it: css-selector-parser 3.3 stops there silently, a browser throws. */
function strayParenthesis(selector: string): boolean {
  let depth = 0;
  let quote = "";
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === "\\") i++;
    else if (quote) quote = c === quote ? "" : quote;
    else if (c === '"' || c === "'") quote = c;
    else if (c === "(") depth++;
    else if (c === ")" && --depth < 0) return true;
  }
  return false;
}

/** True for a selector list `document.querySelectorAll` accepts (checked without a browser). */
export function isCssSelector(value: string): boolean {
  if (value.trim() === "" || strayParenthesis(value)) return false;
  try {
    parseSelector(value);
    return true;
  } catch {
    return false;
  }
}

/** An absolute http or https URL. */
export function isWebUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value) || /\s/.test(value)) return false;
  try {
    return Boolean(new URL(value).host);
  } catch {
    return false;
  }
}

/** An ISO 8601 date-time with seconds optional and a time zone (`Z` or `±hh:mm`), e.g. `2026-12-31T23:59:00Z`. */
export function isDateTime(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value));
}
