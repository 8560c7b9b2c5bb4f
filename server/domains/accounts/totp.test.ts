import { describe, expect, test } from "bun:test";
import { base32, fromBase32, hotp, newRecoveryCodes, newSecret, normaliseRecoveryCode, otpauthUrl, stepAt, verifyTotp } from "./totp.ts";

// RFC 6238 Appendix B: the SHA-1 seed "12345678901234567890", 8 digits.
const SEED = Buffer.from("12345678901234567890");
const VECTORS: [number, string][] = [
  [59, "94287082"],
  [1111111109, "07081804"],
  [1111111111, "14050471"],
  [1234567890, "89005924"],
  [2000000000, "69279037"],
  [20000000000, "65353130"],
];

describe("RFC 6238", () => {
  test("the SHA-1 test vectors", () => {
    for (const [seconds, code] of VECTORS) expect(hotp(SEED, stepAt(seconds * 1000), 8)).toBe(code);
  });

  test("base32 round-trips and matches RFC 4648", () => {
    expect(base32(Buffer.from("foobar"))).toBe("MZXW6YTBOI");
    expect(fromBase32("MZXW6YTBOI").toString()).toBe("foobar");
    const secret = newSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32(fromBase32(secret))).toBe(secret);
  });
});

describe("verifyTotp", () => {
  const secret = base32(SEED);
  const at = 1_111_111_111_000;
  const code = hotp(SEED, stepAt(at));

  test("takes the code of now and of one step either side, nothing further", () => {
    expect(verifyTotp(secret, code, at, null)).toBe(stepAt(at));
    expect(verifyTotp(secret, code, at + 30_000, null)).toBe(stepAt(at));
    expect(verifyTotp(secret, code, at - 30_000, null)).toBe(stepAt(at));
    expect(verifyTotp(secret, code, at + 90_000, null)).toBeUndefined();
    expect(verifyTotp(secret, "12345", at, null)).toBeUndefined();
  });

  test("a code works once", () => {
    const step = verifyTotp(secret, code, at, null)!;
    expect(verifyTotp(secret, code, at, step)).toBeUndefined();
  });
});

test("recovery codes are ten, distinct, and read whatever their case and dashes", () => {
  const codes = newRecoveryCodes();
  expect(new Set(codes).size).toBe(10);
  for (const c of codes) expect(c).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{2}$/);
  expect(normaliseRecoveryCode(" K3J9-X2MQ-7F ")).toBe("k3j9x2mq7f");
  expect(otpauthUrl("Frameline", "a@b.co", "ABC")).toBe("otpauth://totp/Frameline:a%40b.co?secret=ABC&issuer=Frameline&algorithm=SHA1&digits=6&period=30");
});
