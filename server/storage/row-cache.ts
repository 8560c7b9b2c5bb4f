/**
 * A small in-process cache of rows by id. It is only a cache: entries expire
 * after `ttlMs`, writers evict what they change after their commit, and on a
 * PostgreSQL server a trigger's NOTIFY evicts in every other process (see
 * 0001_foundation.sql).
 */
export class RowCache<V> {
  private readonly entries = new Map<number, { value: V; at: number }>();
  /** Bumped on every eviction, so a load that raced a write does not cache the old row. */
  private readonly generations = new Map<number, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached value while fresh, without a promise (the hot read path). */
  peek(id: number): V | undefined {
    const entry = this.entries.get(id);
    return entry && this.now() - entry.at < this.ttlMs ? entry.value : undefined;
  }

  async load(id: number, loader: () => Promise<V | undefined>): Promise<V | undefined> {
    const entry = this.entries.get(id);
    if (entry && this.now() - entry.at < this.ttlMs) return entry.value;
    const generation = this.generations.get(id) ?? 0;
    const value = await loader();
    if (value !== undefined && (this.generations.get(id) ?? 0) === generation) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(id, { value, at: this.now() });
    }
    return value;
  }

  evict(id: number): void {
    this.entries.delete(id);
    this.generations.set(id, (this.generations.get(id) ?? 0) + 1);
  }

  clear(): void {
    for (const id of this.entries.keys()) this.evict(id);
  }
}
