import { describe, expect, test } from "bun:test";
import { originAllowed, originPatternError } from "./allowed-origins.ts";

describe("allowed origins", () => {
  test("an empty list allows any site, even one that sends no origin", () => {
    expect(originAllowed([], "https://anything.test")).toBe(true);
    expect(originAllowed([], null)).toBe(true);
  });

  test("a host name matches any port, host:port only that port", () => {
    expect(originAllowed(["example.com"], "https://example.com")).toBe(true);
    expect(originAllowed(["example.com"], "http://example.com:8080/page?x=1")).toBe(true);
    expect(originAllowed(["localhost:3000"], "http://localhost:3000")).toBe(true);
    expect(originAllowed(["localhost:3000"], "http://localhost:3001")).toBe(false);
    expect(originAllowed(["shop.io:443"], "https://shop.io")).toBe(true);
  });

  test("a wildcard matches subdomains, not the bare domain nor a look-alike", () => {
    expect(originAllowed(["*.shop.io"], "https://www.shop.io")).toBe(true);
    expect(originAllowed(["*.shop.io"], "https://a.b.shop.io")).toBe(true);
    expect(originAllowed(["*.shop.io"], "https://shop.io")).toBe(false);
    expect(originAllowed(["*.shop.io"], "https://evilshop.io")).toBe(false);
  });

  test("another site, a missing origin or an unreadable one is refused", () => {
    expect(originAllowed(["example.com"], "https://example.com.evil.test")).toBe(false);
    expect(originAllowed(["example.com"], null)).toBe(false);
    expect(originAllowed(["example.com"], "null")).toBe(false);
    expect(originAllowed(["example.com"], "file:///example.com")).toBe(false);
  });

  test("patterns are host names, host:port or *.domain", () => {
    for (const ok of ["example.com", "localhost", "127.0.0.1", "a-b.example.com:8443", "*.example.com"]) expect(originPatternError(ok)).toBeNull();
    for (const bad of ["https://example.com", "example.com/path", "*example.com", "ex ample.com", "", "host:0", "host:70000", "a.*.com", "-a.com"]) {
      expect(originPatternError(bad)).toBeString();
    }
  });
});
