/**
 * The merge of docs/api.md "Video settings" rules 1-3: a partial payload merged
 * recursively, key by key, over current settings; lists merged by numeric index
 * (three items over five leave indexes 3 and 4 in place); the payload first
 * filtered to the top-level groups the video carries, minus the five the API
 * cannot set.
 */
import { API_WRITABLE_GROUPS, withDefaults, type Settings } from "../../../contract/settings.ts";

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** `patch` over `base`, returning a new value; neither input is changed. `wholeLists`: a list in the patch replaces the list it meets. */
export function mergeDeep(base: unknown, patch: unknown, wholeLists = false): unknown {
  if (isPlainObject(base) && isPlainObject(patch)) {
    const out: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(patch)) {
      // JSON.parse makes "__proto__" an own key; assigning it would swap the prototype.
      if (key === "__proto__") continue;
      out[key] = Object.hasOwn(base, key) ? mergeDeep(base[key], value, wholeLists) : structuredClone(value);
    }
    return out;
  }
  if (Array.isArray(base) && Array.isArray(patch) && !wholeLists) {
    // Rule 2: by index; entries past the payload's length stay as they were.
    const out = base.slice();
    patch.forEach((value, i) => {
      out[i] = i < base.length ? mergeDeep(base[i], value) : structuredClone(value);
    });
    return out;
  }
  return structuredClone(patch);
}

/**
 * Rule 3: keeps only top-level groups the video carries and the API may set.
 * Anything else (unknown keys, the five read-only groups, `_version_label`) is
 * dropped silently. Nested keys are not filtered.
 */
export function filterPayload(payload: Record<string, unknown>, carried: Settings, writable: readonly string[] = API_WRITABLE_GROUPS): Record<string, unknown> {
  const allowed = new Set(writable);
  return Object.fromEntries(Object.entries(payload).filter(([name]) => allowed.has(name) && Object.hasOwn(carried, name)));
}

/** How a writer's payload merges: which groups it may set, and whether its lists replace the stored ones. */
export interface MergeRules {
  writable: readonly string[];
  wholeLists: boolean;
}

/** The application API's rules 1-3. */
export const API_RULES: MergeRules = { writable: API_WRITABLE_GROUPS, wholeLists: false };

/**
 * Current settings (completed with defaults) with the filtered payload merged
 * over them. The operator API passes its own rules: every group, the five
 * included, and lists replaced whole (its forms send whole lists, so a row can
 * be removed).
 */
export function mergeSettings(current: Partial<Settings>, payload: Record<string, unknown>, rules: MergeRules = API_RULES): Settings {
  const base = withDefaults(current);
  return mergeDeep(base, filterPayload(payload, base, rules.writable), rules.wholeLists) as Settings;
}
