import { describe, expect, test } from "bun:test";
import { isUploadId, newUploadId } from "./upload-id.ts";

describe("upload ids", () => {
  test("every id made is flup_ and 32 lowercase hex, distinct, and accepted", () => {
    const ids = Array.from({ length: 200 }, newUploadId);
    for (const id of ids) {
      expect(id).toMatch(/^flup_[0-9a-f]{32}$/);
      expect(isUploadId(id)).toBe(true);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("other prefixes, upper case, non-hex, empty or overlong tails are refused", () => {
    for (const id of ["flex_00aa", "FLUP_00aa", "flup_00AA", "flup_xyz", "flup_", `flup_${"a".repeat(65)}`, "flup_00aa/../x", " flup_00aa"]) {
      expect(isUploadId(id)).toBe(false);
    }
  });
});
