import { describe, expect, test } from "bun:test";
import { PartReader, PastLimit } from "./part-reader.ts";

/** A body delivering `reads` one by one, then ending (or breaking off with `error`). */
function body(reads: Uint8Array[], error?: Error): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < reads.length) return controller.enqueue(reads[i++]!);
      if (error) controller.error(error);
      else controller.close();
    },
  });
}

const bytes = (n: number, seed = 0) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

async function drain(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const piece of stream) out.push(piece.slice());
  return out;
}

const joined = (pieces: Uint8Array[]) => Buffer.concat(pieces);

describe("PartReader", () => {
  test("network reads are passed on as they arrive, uncopied; the bytes and their order are kept", async () => {
    const reads = Array.from({ length: 41 }, (_, i) => bytes(16 * 1024 + 1 + i, i));
    const total = reads.reduce((n, r) => n + r.byteLength, 0);
    const reader = new PartReader(body(reads), total);
    const passed: Uint8Array[] = [];
    for await (const read of reader.stream) passed.push(read);
    expect(passed).toHaveLength(reads.length);
    passed.forEach((read, i) => expect(read).toBe(reads[i]!)); // the very same bytes, not a copy
    expect(reader.received).toBe(total);
    expect(reader.broken).toBeUndefined();
  });

  test("a body of one byte is one read of one byte; empty reads are skipped", async () => {
    const reader = new PartReader(body([bytes(1)]), 1);
    expect((await drain(reader.stream)).map((p) => p.byteLength)).toEqual([1]);
    const gaps = new PartReader(body([bytes(3), new Uint8Array(0), bytes(4)]), 10);
    expect((await drain(gaps.stream)).map((p) => p.byteLength)).toEqual([3, 4]);
  });

  test("a body that breaks off ends the stream: every byte that arrived is kept, the error is remembered", async () => {
    const reset = new Error("connection reset");
    const reads = [bytes(1000), bytes(3000, 7)];
    const reader = new PartReader(body(reads, reset), 10_000);
    expect(joined(await drain(reader.stream)).equals(joined(reads))).toBe(true);
    expect(reader.broken).toBe(reset);
    expect(reader.received).toBe(4000);
  });

  test("one byte past the limit errors the stream, so the store keeps nothing", async () => {
    const reader = new PartReader(body([bytes(600), bytes(401)]), 1000);
    await expect(drain(reader.stream)).rejects.toBeInstanceOf(PastLimit);
    expect(reader.exceeded).toBe(true);
    const exact = new PartReader(body([bytes(600), bytes(400)]), 1000);
    expect(joined(await drain(exact.stream)).byteLength).toBe(1000);
    expect(exact.exceeded).toBe(false);
  });

  test("a stop signal (a lost lease) errors the stream", async () => {
    const stop = new AbortController();
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (++pulls === 3) stop.abort(new Error("lease lost"));
        await Bun.sleep(1);
        controller.enqueue(bytes(10));
      },
    });
    const reader = new PartReader(endless, 1e9, stop.signal);
    await expect(drain(reader.stream)).rejects.toThrow("lease lost");
  });

  test("an empty body is an empty stream", async () => {
    const reader = new PartReader(body([]), 10);
    expect(await drain(reader.stream)).toEqual([]);
    expect(reader.received).toBe(0);
  });
});
