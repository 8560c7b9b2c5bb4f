/** A bounded in-process map with per-entry expiry. Only a cache: Postgres stays the truth. */
export class TtlCache<V> {
  private readonly map = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): V | undefined {
    const entry = this.map.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.map.delete(key);
      return undefined;
    }
    return entry.value;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value: V, ttlMs: number): void {
    // Dropping the oldest half keeps memory bounded without a full LRU.
    if (this.map.size >= this.maxEntries) {
      let n = this.maxEntries >> 1;
      for (const k of this.map.keys()) {
        if (n-- <= 0) break;
        this.map.delete(k);
      }
    }
    this.map.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  delete(key: string): void {
    this.map.delete(key);
  }
}
