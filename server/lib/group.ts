/**
 * Group commit for small Postgres statements on the hot path: calls arriving
 * within a few milliseconds run as one statement over all of them (one batch
 * at a time), and each caller gets its own result.
 */
export class Group<In, Out> {
  private pending: { item: In; resolve(out: Out): void; reject(error: unknown): void }[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private busy = false;

  constructor(
    private readonly run: (items: In[]) => Promise<Out[]>,
    private readonly maxWaitMs = 2,
    private readonly maxItems = 2000,
  ) {}

  add(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      // While a statement runs, calls gather for the next one: the busier the
      // database, the larger (and fewer) the statements.
      if (this.busy) return;
      if (this.pending.length >= this.maxItems) this.cut();
      else this.timer ??= setTimeout(() => this.cut(), this.maxWaitMs);
    });
  }

  private cut(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.busy || this.pending.length === 0) return;
    const batch = this.pending.splice(0, this.maxItems);
    this.busy = true;
    void (async () => {
      try {
        const out = await this.run(batch.map((b) => b.item));
        batch.forEach((b, i) => b.resolve(out[i]!));
      } catch (error) {
        for (const b of batch) b.reject(error);
      } finally {
        this.busy = false;
        this.cut();
      }
    })();
  }
}
