/**
 * Target URL safety (docs/api.md `WEBHOOK_ALLOW_PRIVATE`): a URL whose host
 * resolves to a loopback, private, link-local, shared, metadata or otherwise
 * non-public address is refused at subscribe time, and at delivery time the
 * host is resolved again and the request is sent to the vetted address itself
 * (Host header and TLS server name keep the original name), so a DNS answer
 * that changes between the check and the connect (rebinding) cannot reach an
 * internal address.
 */
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { errorCode } from "../../lib/error-code.ts";

const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], // "this" network, 0.0.0.0
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const)
  blocked.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7], // unique local, includes fd00::/8 (and fd00:ec2::254 metadata)
  ["fe80::", 10], // link-local
  ["fec0::", 10], // old site-local
  ["ff00::", 8], // multicast
  ["2001:db8::", 32], // documentation
] as const)
  blocked.addSubnet(net, prefix, "ipv6");

/** An IPv4 address carried inside an IPv6 one (mapped, NAT64, 6to4), if any. */
function embeddedIpv4(ip: string): string | undefined {
  const lower = ip.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4}):/.exec(lower);
  if (sixToFour) {
    const hi = parseInt(sixToFour[1]!, 16);
    const lo = parseInt(sixToFour[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return undefined;
}

export function isForbiddenAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return blocked.check(ip, "ipv4");
  if (family === 6) {
    const inner = embeddedIpv4(ip);
    if (inner !== undefined && blocked.check(inner, "ipv4")) return true;
    return blocked.check(ip, "ipv6");
  }
  return true;
}

export class UnsafeTargetError extends Error {}

/** Parses a target URL: http or https, no credentials. Returns the reason when it is not acceptable. */
export function parseTargetUrl(raw: string): URL | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be a valid URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http or https URL";
  if (url.username || url.password) return "must not contain credentials";
  if (!url.hostname) return "must have a host";
  return url;
}

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/** Resolves the URL's host and returns one address every answer of which is public; throws UnsafeTargetError otherwise. */
export async function resolvePublicAddress(url: URL): Promise<string> {
  const host = bareHost(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch (error) {
      throw new UnsafeTargetError(`host ${host} could not be resolved (${errorCode(error) ?? "error"})`);
    }
  }
  if (addresses.length === 0) throw new UnsafeTargetError(`host ${host} has no address`);
  // Any forbidden answer refuses the whole host: a mixed answer is how rebinding attacks start.
  const bad = addresses.find(isForbiddenAddress);
  if (bad !== undefined) throw new UnsafeTargetError(`host ${host} resolves to a private or reserved address (${bad})`);
  return addresses[0]!;
}

/** Subscribe-time check: undefined when acceptable, else a reason for the 422. */
export async function targetUrlProblem(raw: string, allowPrivate: boolean): Promise<string | undefined> {
  const parsed = parseTargetUrl(raw);
  if (typeof parsed === "string") return parsed;
  if (allowPrivate) return undefined;
  try {
    await resolvePublicAddress(parsed);
    return undefined;
  } catch (error) {
    if (error instanceof UnsafeTargetError) return `is not allowed: ${error.message}`;
    throw error;
  }
}

export interface PinnedTarget {
  /** The URL to connect to (the vetted IP in place of the host name). */
  url: string;
  /** Host header to send (the original host[:port]); absent when not pinned. */
  host?: string;
  /** TLS server name (SNI and certificate check) for https. */
  serverName?: string;
}

/** Delivery-time: re-resolves and pins the connection to a vetted address, unless private targets are allowed. */
export async function pinTarget(raw: string, allowPrivate: boolean): Promise<PinnedTarget> {
  const parsed = parseTargetUrl(raw);
  if (typeof parsed === "string") throw new UnsafeTargetError(`target URL ${parsed}`);
  if (allowPrivate) return { url: parsed.toString() };
  const host = bareHost(parsed);
  const address = await resolvePublicAddress(parsed);
  if (isIP(host)) return { url: parsed.toString() };
  const pinned = new URL(parsed.toString());
  pinned.hostname = isIP(address) === 6 ? `[${address}]` : address;
  return { url: pinned.toString(), host: parsed.host, serverName: parsed.protocol === "https:" ? host : undefined };
}
