import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { bodyFor, ErrorTable, Errors, fail, validation, type ErrorCode } from "./errors.ts";

/** docs/api.md "Errors", status by code: binding, so the table may not drift from it. */
const SPEC_STATUSES: Partial<Record<ErrorCode, number>> = {
  INVALID_PAYLOAD: 400,
  INVALID_EVENT_NAME: 400,
  OFFSET_REQUIRED: 400,
  EMPTY_CHUNK: 400,
  SIZE_EXCEEDED: 400,
  AUTH_REQUIRED: 401,
  INVALID_TOKEN: 401,
  INSUFFICIENT_SCOPE: 403,
  FALLBACK_DISABLED: 403,
  INTEGRATION_NOT_FOUND: 404,
  VIDEO_NOT_FOUND: 404,
  UPLOAD_NOT_FOUND: 404,
  EXPORT_NOT_FOUND: 404,
  NOT_FOUND: 404,
  OFFSET_MISMATCH: 409,
  INCOMPLETE: 409,
  UNSUPPORTED_MEDIA_TYPE: 422,
  FOLDER_NOT_FOUND: 422,
  TOO_MANY_EVENT_NAMES: 422,
  RATE_LIMITED: 429,
  WRITE_FAILED: 500,
  AUTH_UNAVAILABLE: 503,
  UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
};

describe("the error table", () => {
  test("every code docs/api.md names has docs/api.md's status", () => {
    for (const [code, status] of Object.entries(SPEC_STATUSES)) expect([code, ErrorTable[code as ErrorCode].status as number]).toEqual([code, status]);
  });

  test("fail() answers the row's status, shape and headers", () => {
    const busy = fail("DATABASE_BUSY");
    expect(busy.status).toBe(503);
    expect(busy.headers["Retry-After"]).toBe("1");
    expect(busy.body).toEqual({ error: { code: "DATABASE_BUSY", message: ErrorTable.DATABASE_BUSY.message } });
    expect(busy.code).toBe("DATABASE_BUSY");
    expect(Errors.modelNotFound("Video", 7).body).toEqual({ message: "No query results for model [Video] 7" });
    expect(Errors.unknownWorkspace().body).toEqual({ error: "unknown_workspace" });
    expect(validation({ title: ["The title is required."] }).body).toEqual({
      message: "The title is required.",
      errors: { title: ["The title is required."] },
    });
  });

  test("a coded error is written flat on the events host, with its extras and the outer fields", () => {
    const scope = Errors.insufficientScope("events:write");
    expect(bodyFor(scope, "api")).toEqual({ error: { code: "INSUFFICIENT_SCOPE", message: expect.any(String), required: "events:write" } });
    expect(bodyFor(scope, "events")).toEqual({ error: "INSUFFICIENT_SCOPE", message: expect.any(String), required: "events:write" });
    expect(bodyFor(Errors.conversionVideoNotFound("abc"), "api")).toMatchObject({ error: { code: "VIDEO_NOT_FOUND", video_code: "abc" }, video_code: "abc" });
    // Shapes other than coded look the same on both hosts.
    expect(bodyFor(validation({ a: ["x"] }), "events")).toEqual({ message: "x", errors: { a: ["x"] } });
  });

  test("POST /conversions answers 503 WRITE_FAILED where the events host answers 500 (docs/api.md)", () => {
    expect(Errors.conversionNotWritten().status).toBe(503);
    expect(Errors.conversionNotWritten().code).toBe("WRITE_FAILED");
    expect(Errors.eventNotWritten().status).toBe(500);
  });

  test('README.md "Errors" lists every code of the table', async () => {
    const readme = await Bun.file(join(import.meta.dir, "..", "README.md")).text();
    const section = readme.slice(readme.indexOf("\n## Errors"), readme.indexOf("\n## ", readme.indexOf("\n## Errors") + 1));
    const missing = Object.keys(ErrorTable).filter((code) => !section.includes(`\`${code}\``));
    expect(missing).toEqual([]);
  });
});
