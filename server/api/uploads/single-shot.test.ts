/** The multipart reader of the single-shot path, over a real fs blob store. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError } from "../../errors.ts";
import { createFsBlobStore } from "../../storage/blob/index.ts";
import { parseMultipart } from "./single-shot.ts";

const root = await mkdtemp(join(tmpdir(), "frameline-single-shot-"));
const store = createFsBlobStore(root);
afterAll(() => rm(root, { recursive: true, force: true }));

/** A multipart body as a browser or curl sends it. */
async function encode(fields: [string, string | Blob][]): Promise<{ type: string; body: ReadableStream<Uint8Array> }> {
  const form = new FormData();
  for (const [name, value] of fields) {
    if (typeof value === "string") form.append(name, value);
    else form.append(name, value, "clip.mp4");
  }
  const response = new Response(form);
  return { type: response.headers.get("content-type")!, body: response.body! };
}

const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7) & 0xff);

describe("parseMultipart", () => {
  test("the file streams to the store whole; its size, first bytes and name are reported; orientation may come after it", async () => {
    const file = bytes(300_000);
    const { type, body } = await encode([
      ["file", new Blob([file])],
      ["orientation", "portrait"],
    ]);
    const parsed = await parseMultipart(store, type, body, "a/source", 10_000_000);
    expect(parsed.orientation).toBe("portrait");
    expect(parsed.file).toMatchObject({ size: file.byteLength, filename: "clip.mp4" });
    expect(Buffer.from(parsed.file!.head).equals(Buffer.from(file.subarray(0, 64)))).toBe(true);
    const stored = new Uint8Array(await new Response((await store.get("a/source"))!.body).arrayBuffer());
    expect(Buffer.from(stored).equals(Buffer.from(file))).toBe(true);
  });

  test("no file part: nothing stored, no file reported", async () => {
    const { type, body } = await encode([["orientation", "landscape"]]);
    const parsed = await parseMultipart(store, type, body, "b/source", 1000);
    expect(parsed).toEqual({ orientation: "landscape" });
    expect(await store.head("b/source")).toBeUndefined();
  });

  test("a file past the limit is cut off: 413", async () => {
    const { type, body } = await encode([["file", new Blob([bytes(5000)])]]);
    const error = await parseMultipart(store, type, body, "c/source", 1000).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(413);
  });

  test("a body that is not multipart is a 422 on the file field", async () => {
    const body = new Response("not multipart").body!;
    const error = await parseMultipart(store, "multipart/form-data", body, "d/source", 1000).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(422);
  });
});
