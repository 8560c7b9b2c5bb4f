/**
 * Reads one chunk's request body for the blob store.
 *
 * - Network reads are small (16 to 64 KiB); joining them into pieces of up to
 *   256 KiB gives one disk write per piece, and the disk writes one piece while
 *   the next arrives (a 1 MiB chunk is four writes, not one at its end). A read
 *   that is a piece on its own is passed on without a copy. Memory stays bounded
 *   by the pieces in flight (the S3 store adds one part).
 * - At most `limit` bytes are taken (the rest of the declared size): a body that
 *   runs past it errors the stream, so the store keeps nothing (SIZE_EXCEEDED).
 * - A body that breaks off (a dropped connection) ends the stream cleanly: every
 *   byte that arrived is kept, and the client resumes from the offset that GET
 *   or HEAD reports, as tus servers do.
 * - `stop` (a lost lease) errors the stream: another request may be writing.
 */

export const PIECE = 256 * 1024;

/** The body ran past the bytes left in the upload. */
export class PastLimit extends Error {
  constructor(limit: number) {
    super(`the body is longer than the ${limit} bytes left in the upload`);
    this.name = "PastLimit";
  }
}

export class PartReader {
  /** Bytes read from the body so far. */
  received = 0;
  /** Why the body broke off, when it did. */
  broken: unknown;
  readonly stream: ReadableStream<Uint8Array>;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private pending: Uint8Array | undefined;
  private ended = false;

  constructor(
    body: ReadableStream<Uint8Array>,
    private readonly limit: number,
    private readonly stop?: AbortSignal,
  ) {
    this.reader = body.getReader();
    this.stream = new ReadableStream<Uint8Array>({ pull: (controller) => this.pull(controller) });
    stop?.addEventListener("abort", () => void this.reader.cancel().catch(() => {}), { once: true });
  }

  get exceeded(): boolean {
    return this.received > this.limit;
  }

  /** Stops reading the body (the answer is decided). */
  async close(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }

  private async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    const reads: Uint8Array[] = [];
    let filled = 0;
    try {
      while (filled < PIECE) {
        const chunk = this.pending ?? (await this.read());
        if (!chunk) break;
        const take = Math.min(PIECE - filled, chunk.byteLength);
        this.pending = take < chunk.byteLength ? chunk.subarray(take) : undefined;
        reads.push(take < chunk.byteLength ? chunk.subarray(0, take) : chunk);
        filled += take;
      }
    } catch (error) {
      controller.error(error);
      return;
    }
    // One read goes through as it is; several are joined into one piece of exactly their size.
    if (filled > 0) controller.enqueue(reads.length === 1 ? reads[0]! : Buffer.concat(reads, filled));
    if (filled < PIECE) controller.close();
  }

  /** The next read of the body; undefined at its end, also when it broke off. */
  private async read(): Promise<Uint8Array | undefined> {
    while (!this.ended) {
      let next: { done: boolean; value?: Uint8Array };
      try {
        next = await this.reader.read();
      } catch (error) {
        this.broken = error;
        next = { done: true };
      }
      if (this.stop?.aborted) throw this.stop.reason ?? new Error("stopped");
      if (next.done || !next.value) {
        this.ended = true;
        break;
      }
      this.received += next.value.byteLength;
      if (this.exceeded) {
        await this.close();
        throw new PastLimit(this.limit);
      }
      if (next.value.byteLength > 0) return next.value;
    }
    return undefined;
  }
}
