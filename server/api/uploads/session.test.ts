import { describe, expect, test } from "bun:test";
import { ApiError } from "../../errors.ts";
import { assertAllBytes, isChunkContentType, isLive, parseOffset, planChunk } from "./session.ts";

const NOW = Date.parse("2026-11-24T12:00:00Z");
const session = (over: Partial<{ state: "open" | "completed" | "closed" | "expired"; offset: number; size: number; expires_at: Date }> = {}) => ({
  state: "open" as const,
  offset: 400,
  size: 1000,
  expires_at: new Date(NOW + 1000),
  ...over,
});

/** The error a rule throws, as the client sees it. */
function refusal(run: () => unknown): { status: number; code: string; offset?: number } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const { status, body } = error as ApiError;
    const { code, offset } = (body as { error: { code: string; offset?: number } }).error;
    return { status, code, ...(offset === undefined ? {} : { offset }) };
  }
  throw new Error("the rule did not refuse");
}

describe("planChunk: the PATCH rows of the state table, for any chunk length", () => {
  test("at the server's offset any length up to the declared size is appended", () => {
    for (const length of [1, 400, 599, 600, undefined]) expect(planChunk(session(), 400, length)).toEqual({ write: true, limit: 600 });
  });

  test("behind the server: answered with the real offset, nothing written", () => {
    expect(planChunk(session(), 0, 400)).toEqual({ write: false });
    expect(planChunk(session(), 399, 1)).toEqual({ write: false });
    // Also once every byte is there, or the session is completed (a retry whose answer was lost).
    expect(planChunk(session({ offset: 1000, state: "completed" }), 0, 1000)).toEqual({ write: false });
  });

  test("ahead of the server: 409 OFFSET_MISMATCH with the real offset", () => {
    expect(refusal(() => planChunk(session(), 401, 1))).toEqual({ status: 409, code: "OFFSET_MISMATCH", offset: 400 });
  });

  test("past the declared size, at the end, or after complete: 400 SIZE_EXCEEDED", () => {
    expect(refusal(() => planChunk(session(), 400, 601))).toMatchObject({ status: 400, code: "SIZE_EXCEEDED" });
    expect(refusal(() => planChunk(session({ offset: 1000 }), 1000, undefined))).toMatchObject({ status: 400, code: "SIZE_EXCEEDED" });
    expect(refusal(() => planChunk(session({ offset: 1000, state: "completed" }), 1000, 1))).toMatchObject({ status: 400, code: "SIZE_EXCEEDED" });
  });

  test("a declared length of zero: 400 EMPTY_CHUNK", () => {
    expect(refusal(() => planChunk(session(), 400, 0))).toMatchObject({ status: 400, code: "EMPTY_CHUNK" });
  });
});

describe("the other rules", () => {
  test("parseOffset: missing or not a byte count is 400 OFFSET_REQUIRED", () => {
    expect(parseOffset("0")).toBe(0);
    expect(parseOffset(" 8388608 ")).toBe(8388608);
    for (const raw of [null, "", "  ", "-1", "1.5", "1e3", "12345678901234567"]) expect(refusal(() => parseOffset(raw)).code).toBe("OFFSET_REQUIRED");
  });

  test("chunks are application/offset+octet-stream, parameters and case aside", () => {
    expect(isChunkContentType("application/offset+octet-stream")).toBe(true);
    expect(isChunkContentType("Application/Offset+Octet-Stream; charset=binary")).toBe(true);
    for (const type of [null, "", "application/octet-stream", "application/json"]) expect(isChunkContentType(type)).toBe(false);
  });

  test("complete needs every byte: 409 INCOMPLETE with the offset", () => {
    expect(refusal(() => assertAllBytes(session()))).toEqual({ status: 409, code: "INCOMPLETE", offset: 400 });
    expect(() => assertAllBytes(session({ offset: 1000 }))).not.toThrow();
  });

  test("a session is live while open or completed and unexpired", () => {
    expect(isLive(session(), NOW)).toBe(true);
    expect(isLive(session({ state: "completed" }), NOW)).toBe(true);
    expect(isLive(session({ state: "closed" }), NOW)).toBe(false);
    expect(isLive(session({ state: "expired" }), NOW)).toBe(false);
    expect(isLive(session({ expires_at: new Date(NOW) }), NOW)).toBe(false);
  });
});
