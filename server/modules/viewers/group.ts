/**
 * Group commit for small Postgres statements on the hot path: calls arriving
 * within a few milliseconds run as one statement over all of them (one batch
 * at a time), and each caller gets its own result.
 */
export class Group<In, Out> {
  private pending: { item: In; resolve(out: Out): void; reject(error: unknown): void }[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly run: (items: In[]) => Promise<Out[]>,
    private readonly maxWaitMs = 2,
    private readonly maxItems = 2000,
  ) {}

  add(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length >= this.maxItems) this.cut();
      else this.timer ??= setTimeout(() => this.cut(), this.maxWaitMs);
    });
  }

  private cut(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    this.running = this.running.then(async () => {
      try {
        const out = await this.run(batch.map((b) => b.item));
        batch.forEach((b, i) => b.resolve(out[i]!));
      } catch (error) {
        for (const b of batch) b.reject(error);
      }
    });
  }
}
