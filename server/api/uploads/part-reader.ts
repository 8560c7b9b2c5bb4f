/**
 * Reads one chunk's request body for the blob store.
 *
 * - Network reads (16 to 256 KiB) are passed on as they arrive, never copied:
 *   the fs store gathers them into one vectored write per 256 KiB (a 1 MiB
 *   chunk is about four writes, the disk writing one while the next arrives),
 *   the S3 store copies them into its part. Memory stays bounded by the reads
 *   in flight (the S3 store adds one part).
 * - At most `limit` bytes are taken (the rest of the declared size): a body that
 *   runs past it errors the stream, so the store keeps nothing (SIZE_EXCEEDED).
 * - A body that breaks off (a dropped connection) ends the stream cleanly: every
 *   byte that arrived is kept, and the client resumes from the offset that GET
 *   or HEAD reports, as tus servers do.
 * - `stop` (a lost lease) errors the stream: another request may be writing.
 */

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
    let read: Uint8Array | undefined;
    try {
      read = await this.read();
    } catch (error) {
      controller.error(error);
      return;
    }
    if (read) controller.enqueue(read);
    else controller.close();
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
