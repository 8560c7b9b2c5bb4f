import { describe, expect, test } from "bun:test";
import { fieldProblem } from "./lead-capture.ts";

describe("fieldProblem", () => {
  test("an email is checked in the page", () => {
    for (const ok of ["ann@example.com", "a.b+c@mail.example.co.uk"]) expect(fieldProblem("email", ok)).toBeUndefined();
    for (const bad of ["", "ann", "ann@", "ann@example", "a n@example.com", "@example.com"]) expect(fieldProblem("email", bad)).toContain("email address");
  });

  test("a phone is optional but, when given, must carry its country code; names are at most 100 characters", () => {
    expect(fieldProblem("phone", "")).toBeUndefined();
    expect(fieldProblem("phone", "+44 20 7946 0000")).toBeUndefined();
    expect(fieldProblem("phone", "0049 151 1234567")).toBeUndefined();
    expect(fieldProblem("phone", "020 7946 0000")).toContain("country code");
    expect(fieldProblem("first_name", "Ann")).toBeUndefined();
    expect(fieldProblem("last_name", "x".repeat(101))).toContain("100");
  });
});
