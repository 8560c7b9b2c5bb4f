import { expect, test } from "bun:test";
import { FIRST_LOCK_MS, lockFor, lockoutKey, MAX_LOCK_MS } from "./lockout.ts";

test("four failures are free, then the wait doubles up to a cap", () => {
  expect([1, 2, 3, 4].map(lockFor)).toEqual([0, 0, 0, 0]);
  expect(lockFor(5)).toBe(FIRST_LOCK_MS);
  expect(lockFor(6)).toBe(2 * FIRST_LOCK_MS);
  expect(lockFor(7)).toBe(4 * FIRST_LOCK_MS);
  expect(lockFor(50)).toBe(MAX_LOCK_MS);
  expect(lockFor(5000)).toBe(MAX_LOCK_MS);
});

test("the key is the address and the account, whatever the email's case", () => {
  expect(lockoutKey("203.0.113.9", "Owner@Shop.Example")).toBe("203.0.113.9|owner@shop.example");
  expect(lockoutKey("203.0.113.9", "a@b.co")).not.toBe(lockoutKey("198.51.100.7", "a@b.co"));
});
