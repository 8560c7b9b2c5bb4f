/**
 * What the events host learns about a viewer from the request itself, for the
 * analytics breakdowns: device type, browser and OS from the User-Agent (bowser,
 * MIT), the country from the IP address with the GeoIP database that
 * `@ip-location-db/geo-whois-asn-country-mmdb` ships (country level, built from
 * the regional internet registries' data, CC BY 4.0 by the NRO), read with
 * mmdb-lib. Nothing is downloaded at run time, and the IP is only looked up,
 * never stored (docs/api.md: `ip_hash` is always null).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import Bowser from "bowser";
import { Reader } from "mmdb-lib";

export interface ClientContext {
  /** `desktop`, `mobile`, `tablet`, `tv`, `bot`, or "" when the User-Agent says nothing. */
  device: string;
  browser: string;
  os: string;
  /** ISO 3166-1 alpha-2, or "" for private, reserved and unknown addresses. */
  country: string;
}

const NONE: ClientContext = { device: "", browser: "", os: "", country: "" };
const MAX_UA = 512;

/** Parsed User-Agents, bounded: most traffic comes from a few hundred distinct strings. */
const parsed = new Map<string, Omit<ClientContext, "country">>();
const MAX_PARSED = 1000;

export function parseUserAgent(userAgent: string | null | undefined): Omit<ClientContext, "country"> {
  const ua = (userAgent ?? "").slice(0, MAX_UA).trim();
  if (!ua) return { device: "", browser: "", os: "" };
  const hit = parsed.get(ua);
  if (hit) return hit;
  let result: Omit<ClientContext, "country">;
  try {
    const p = Bowser.parse(ua);
    result = { device: p.platform.type ?? "", browser: p.browser.name ?? "", os: p.os.name ?? "" };
  } catch {
    result = { device: "", browser: "", os: "" };
  }
  if (parsed.size >= MAX_PARSED) parsed.delete(parsed.keys().next().value!);
  parsed.set(ua, result);
  return result;
}

/** This database's records: just the country (not one of MaxMind's own record shapes). */
interface CountryDb {
  get(ip: string): { country_code?: string } | null;
}

let geo: CountryDb | undefined;

/** Loaded on first use (about 8 MB, a few milliseconds), then shared by the process: the data never changes while it runs. */
function geoReader(): CountryDb {
  if (!geo) {
    const file = createRequire(import.meta.url).resolve("@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb");
    // mmdb-lib types a record as one of MaxMind's shapes, which this database's are not.
    geo = new Reader(readFileSync(file)) as unknown as CountryDb;
  }
  return geo;
}

export function countryOf(ip: string | null | undefined): string {
  if (!ip || ip === "unknown") return "";
  try {
    return geoReader().get(ip.replace(/^::ffff:/, ""))?.country_code ?? "";
  } catch {
    return ""; // not an IP address
  }
}

export function clientContext(userAgent: string | null | undefined, ip: string | null | undefined): ClientContext {
  if (!userAgent && !ip) return NONE;
  return { ...parseUserAgent(userAgent), country: countryOf(ip) };
}

/** A host as the breakdowns group it: lowercase, without a leading `www.`. */
export function normaliseHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^www\./, "");
}
