/**
 * The `accessRules` of a playback token, as Cloudflare Stream's signed URLs carry
 * them: a list of `{type, action, country?, ip?}` checked in order, the first rule
 * that matches the viewer deciding (`allow` or `block`); no match allows. `any`
 * matches everyone, `ip.src` an address in one of its `ip` entries (addresses or
 * CIDR ranges, IPv4 or IPv6), `ip.geoip.country` a viewer whose IP is located in
 * one of its `country` codes (ISO 3166-1 alpha-2).
 *
 * @example
 *   const rules = compileAccessRules([{ type: "ip.geoip.country", action: "allow", country: ["US"] }, { type: "any", action: "block" }]);
 *   allowedBy(rules!, "8.8.8.8", countryOf); // true
 */
import { BlockList, isIP } from "node:net";

export const ACCESS_RULE_TYPES = ["any", "ip.src", "ip.geoip.country"] as const;
export const ACCESS_RULE_ACTIONS = ["allow", "block"] as const;
export const MAX_ACCESS_RULES = 20;
/** Entries per rule: enough for a sales region, small enough for a URL. */
export const MAX_RULE_ENTRIES = 100;

export interface AccessRule {
  type: (typeof ACCESS_RULE_TYPES)[number];
  action: (typeof ACCESS_RULE_ACTIONS)[number];
  country?: string[];
  ip?: string[];
}

/** A rule ready to match: the countries upper-cased, the addresses in a BlockList. */
export interface CompiledRule {
  allow: boolean;
  matches: (ip: string, country: () => string) => boolean;
}

/** Errors by field (`accessRules.<i>.<field>`), empty when the list is valid. */
export function accessRuleErrors(rules: unknown): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => {
    (errors[field] ??= []).push(message);
  };
  if (!Array.isArray(rules)) return { accessRules: ["The accessRules must be a list of rules."] };
  if (rules.length > MAX_ACCESS_RULES) add("accessRules", `At most ${MAX_ACCESS_RULES} rules may be given.`);
  rules.slice(0, MAX_ACCESS_RULES).forEach((rule: unknown, i) => {
    const at = `accessRules.${i}`;
    if (!rule || typeof rule !== "object" || Array.isArray(rule)) return add(at, "Each rule must be an object {type, action, country?, ip?}.");
    const r = rule as Record<string, unknown>;
    for (const key of Object.keys(r))
      if (!["type", "action", "country", "ip"].includes(key)) add(`${at}.${key}`, "A rule has only type, action, country and ip.");
    if (!ACCESS_RULE_TYPES.includes(r.type as AccessRule["type"])) add(`${at}.type`, "The type must be any, ip.src or ip.geoip.country.");
    if (!ACCESS_RULE_ACTIONS.includes(r.action as AccessRule["action"])) add(`${at}.action`, "The action must be allow or block.");
    const list = (field: "country" | "ip", wanted: boolean, check: (entry: string) => boolean, what: string) => {
      const value = r[field];
      if (!wanted) {
        if (value !== undefined) add(`${at}.${field}`, `Only an ${field === "country" ? "ip.geoip.country" : "ip.src"} rule takes ${field}.`);
        return;
      }
      if (!Array.isArray(value) || value.length === 0 || value.length > MAX_RULE_ENTRIES) {
        return add(`${at}.${field}`, `The ${field} must be a list of 1 to ${MAX_RULE_ENTRIES} ${what}.`);
      }
      const bad = value.filter((e) => typeof e !== "string" || !check(e));
      if (bad.length)
        add(
          `${at}.${field}`,
          `Not ${what}: ${bad
            .slice(0, 3)
            .map((e) => JSON.stringify(e))
            .join(", ")}.`,
        );
    };
    list("country", r.type === "ip.geoip.country", (e) => /^[A-Za-z]{2}$/.test(e), "two-letter country codes (ISO 3166-1 alpha-2)");
    list("ip", r.type === "ip.src", (e) => parseRange(e) !== null, "IP addresses or CIDR ranges");
  });
  return errors;
}

/** An address or CIDR range as BlockList takes it, or null. */
function parseRange(entry: string): { address: string; prefix: number; family: "ipv4" | "ipv6" } | null {
  const [address = "", bits, extra] = entry.split("/");
  if (extra !== undefined) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const max = version === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : -1;
  return prefix >= 0 && prefix <= max ? { address, prefix, family: version === 4 ? "ipv4" : "ipv6" } : null;
}

/** The rules ready to match, or null when they are not valid (a token minted elsewhere may carry anything). */
export function compileAccessRules(rules: unknown): CompiledRule[] | null {
  if (Object.keys(accessRuleErrors(rules)).length) return null;
  return (rules as AccessRule[]).map((rule) => {
    const allow = rule.action === "allow";
    if (rule.type === "any") return { allow, matches: () => true };
    if (rule.type === "ip.geoip.country") {
      const countries = new Set(rule.country!.map((c) => c.toUpperCase()));
      return { allow, matches: (_ip, country) => countries.has(country()) };
    }
    const list = new BlockList();
    for (const entry of rule.ip!) {
      const range = parseRange(entry)!;
      list.addSubnet(range.address, range.prefix, range.family);
    }
    return { allow, matches: (ip) => ipIn(list, ip) };
  });
}

function ipIn(list: BlockList, ip: string): boolean {
  const version = isIP(ip);
  if (version === 0) return false;
  // An IPv4 viewer on a dual-stack socket shows as ::ffff:a.b.c.d; an ipv4 range must still match it.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped ? list.check(mapped[1]!, "ipv4") : list.check(ip, version === 4 ? "ipv4" : "ipv6");
}

/** First match wins; no rule matching allows. `countryOf` runs only when a country rule is reached. */
export function allowedBy(rules: readonly CompiledRule[], ip: string, countryOf: (ip: string) => string): boolean {
  let country: string | undefined;
  const lazyCountry = () => (country ??= countryOf(ip).toUpperCase());
  for (const rule of rules) if (rule.matches(ip, lazyCountry)) return rule.allow;
  return true;
}

/** Valid rules as a token carries them: country codes upper-cased, only the fields a rule has. */
export function normalisedRules(rules: readonly AccessRule[]): AccessRule[] {
  return rules.map((r) => ({
    type: r.type,
    action: r.action,
    ...(r.country && { country: r.country.map((c) => c.toUpperCase()) }),
    ...(r.ip && { ip: [...r.ip] }),
  }));
}
