import { describe, expect, test } from "bun:test";
import { clientContext, countryOf, normaliseHost, parseUserAgent } from "./client.ts";

const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1";
const WINDOWS_CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
const IPAD = "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1";

describe("client context", () => {
  test("device type, browser and OS from the User-Agent", () => {
    expect(parseUserAgent(IPHONE)).toEqual({ device: "mobile", browser: "Safari", os: "iOS" });
    expect(parseUserAgent(WINDOWS_CHROME)).toEqual({ device: "desktop", browser: "Chrome", os: "Windows" });
    expect(parseUserAgent(IPAD).device).toBe("tablet");
    expect(parseUserAgent("")).toEqual({ device: "", browser: "", os: "" });
    expect(parseUserAgent(undefined)).toEqual({ device: "", browser: "", os: "" });
  });

  test("country from the shipped GeoIP database; private, loopback and malformed addresses have none", () => {
    expect(countryOf("81.2.69.142")).toBe("GB");
    expect(countryOf("::ffff:193.99.144.80")).toBe("DE");
    expect(countryOf("2001:4860:4860::8888")).toBe("US");
    for (const ip of ["127.0.0.1", "10.1.2.3", "::1", "unknown", "not an ip", ""]) expect(countryOf(ip)).toBe("");
  });

  test("clientContext combines both; hosts group without case and www.", () => {
    expect(clientContext(IPHONE, "133.242.0.3")).toEqual({ device: "mobile", browser: "Safari", os: "iOS", country: "JP" });
    expect(normaliseHost(" WWW.Google.com ")).toBe("google.com");
    expect(normaliseHost("news.example.org")).toBe("news.example.org");
  });
});
