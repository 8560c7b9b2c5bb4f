import { describe, expect, test } from "bun:test";
import { hashPassword, passwordProblems, verifyPassword } from "./passwords.ts";

describe("passwordProblems", () => {
  test("refuses short, common, repeated and email passwords", () => {
    expect(passwordProblems("short", "a@b.co")[0]).toContain("at least 10");
    expect(passwordProblems("Password123", "a@b.co")[0]).toContain("most common");
    expect(passwordProblems("aaaaaaaaaaaa", "a@b.co")[0]).toContain("repeated");
    expect(passwordProblems("sally.seller", "sally.seller@shop.example")[0]).toContain("email");
    expect(passwordProblems("x".repeat(257), "a@b.co")[0]).toContain("at most 256");
  });

  test("accepts a long uncommon one", () => {
    expect(passwordProblems("correct horse battery", "a@b.co")).toEqual([]);
  });
});

describe("hashing", () => {
  test("is Argon2id and verifies only the right password", async () => {
    const hash = await hashPassword("correct horse battery");
    expect(hash.startsWith("$argon2id$")).toBe(true);
    expect(await verifyPassword("correct horse battery", hash)).toBe(true);
    expect(await verifyPassword("correct horse batterY", hash)).toBe(false);
    expect(await verifyPassword("anything", undefined)).toBe(false);
  });
});
