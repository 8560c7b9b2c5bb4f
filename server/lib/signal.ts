/**
 * In-process wake-ups: a producer calls `notify()` after queuing work, and every
 * loop listening wakes from its sleep. Each listener keeps a notification that
 * came while it was busy, so its next wait returns at once and no work waits a
 * whole poll interval. Other processes do not hear it: they poll.
 */
export class Signal {
  /** @internal */
  readonly listeners = new Set<Listener>();

  notify(): void {
    for (const listener of this.listeners) listener.fire();
  }

  listen(): Listener {
    return listen(this);
  }
}

/** One loop's ear on one or more signals; one wait at a time. */
export function listen(...signals: Signal[]): Listener {
  const listener = new Listener(() => {
    for (const signal of signals) signal.listeners.delete(listener);
  });
  for (const signal of signals) signal.listeners.add(listener);
  return listener;
}

export class Listener {
  private pending = false;
  private wake: (() => void) | undefined;

  constructor(private readonly unsubscribe: () => void) {}

  fire(): void {
    this.pending = true;
    this.wake?.();
  }

  /** Resolves after `ms`, on a notification (at once when one came since the last wait), or when `abort` fires. */
  wait(ms: number, abort?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (this.pending || abort?.aborted) {
        this.pending = false;
        return resolve();
      }
      const done = () => {
        clearTimeout(timer);
        abort?.removeEventListener("abort", done);
        if (this.wake === done) this.wake = undefined;
        this.pending = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
      abort?.addEventListener("abort", done, { once: true });
    });
  }

  close(): void {
    this.unsubscribe();
    this.wake?.();
  }
}
