import { describe, expect, test } from "bun:test";
import { accessRuleErrors, allowedBy, compileAccessRules } from "./access-rules.ts";

const countries: Record<string, string> = { "8.8.8.8": "US", "81.2.69.142": "GB" };
const countryOf = (ip: string) => countries[ip] ?? "";
const decide = (rules: unknown, ip: string) => allowedBy(compileAccessRules(rules)!, ip, countryOf);

describe("access rules", () => {
  test("first match wins; no match allows", () => {
    const usOnly = [
      { type: "ip.geoip.country", action: "allow", country: ["us", "MX"] },
      { type: "any", action: "block" },
    ];
    expect(decide(usOnly, "8.8.8.8")).toBe(true);
    expect(decide(usOnly, "81.2.69.142")).toBe(false);
    expect(decide([{ type: "ip.geoip.country", action: "block", country: ["GB"] }], "8.8.8.8")).toBe(true);
    expect(decide([], "8.8.8.8")).toBe(true);
  });

  test("ip.src matches addresses and CIDR ranges, IPv4 (also mapped) and IPv6", () => {
    const office = [
      { type: "ip.src", action: "allow", ip: ["203.0.113.0/24", "2001:db8::/32", "198.51.100.7"] },
      { type: "any", action: "block" },
    ];
    for (const ip of ["203.0.113.9", "::ffff:203.0.113.9", "2001:db8::1", "198.51.100.7"]) expect(decide(office, ip)).toBe(true);
    for (const ip of ["203.0.114.1", "2001:db9::1", "198.51.100.8", "unknown"]) expect(decide(office, ip)).toBe(false);
  });

  test("the country is looked up only when a country rule is reached", () => {
    let lookups = 0;
    const rules = compileAccessRules([
      { type: "ip.src", action: "block", ip: ["10.0.0.0/8"] },
      { type: "ip.geoip.country", action: "allow", country: ["US"] },
    ])!;
    expect(allowedBy(rules, "10.1.1.1", () => (lookups++, "US"))).toBe(false);
    expect(lookups).toBe(0);
    expect(allowedBy(rules, "8.8.8.8", () => (lookups++, "US"))).toBe(true);
    expect(lookups).toBe(1);
  });

  test("clear errors per rule and field; an invalid list does not compile", () => {
    expect(accessRuleErrors([{ type: "any", action: "allow" }])).toEqual({});
    expect(
      accessRuleErrors([
        { type: "ip.asn", action: "allow" },
        { type: "ip.src", action: "deny", ip: ["300.1.1.1", "10.0.0.0/33"] },
        { type: "ip.geoip.country", action: "block", country: [] },
        { type: "any", action: "block", country: ["US"], extra: 1 },
        "any",
      ]),
    ).toEqual({
      "accessRules.0.type": ["The type must be any, ip.src or ip.geoip.country."],
      "accessRules.1.action": ["The action must be allow or block."],
      "accessRules.1.ip": ['Not IP addresses or CIDR ranges: "300.1.1.1", "10.0.0.0/33".'],
      "accessRules.2.country": ["The country must be a list of 1 to 100 two-letter country codes (ISO 3166-1 alpha-2)."],
      "accessRules.3.extra": ["A rule has only type, action, country and ip."],
      "accessRules.3.country": ["Only an ip.geoip.country rule takes country."],
      "accessRules.4": ["Each rule must be an object {type, action, country?, ip?}."],
    });
    expect(accessRuleErrors(Array.from({ length: 21 }, () => ({ type: "any", action: "allow" })))).toEqual({ accessRules: ["At most 20 rules may be given."] });
    expect(compileAccessRules([{ type: "nope", action: "allow" }])).toBeNull();
    expect(compileAccessRules("any")).toBeNull();
  });
});
