import { ErrorDetails, ErrorTypes, type PlayerError } from "./errors.ts";

/** A tiny typed event bus: controllers talk through it, like hls.js's. */
export class Emitter<E> {
  private handlers: { [K in keyof E]?: ((data: E[K]) => void)[] } = {};

  on<K extends keyof E>(name: K, fn: (data: E[K]) => void): () => void {
    (this.handlers[name] ||= []).push(fn);
    return () => {
      const list = this.handlers[name];
      if (list) list.splice(list.indexOf(fn) >>> 0, 1);
    };
  }

  /** A failing handler never breaks the others nor the page (errors are events). */
  emit<K extends keyof E>(name: K, data: E[K]): void {
    for (const fn of (this.handlers[name] || []).slice()) {
      try {
        fn(data);
      } catch (e) {
        const failure: PlayerError = { type: ErrorTypes.OTHER, details: ErrorDetails.HANDLER, fatal: false, error: e };
        if (name !== ("error" as K)) this.emit("error" as K, failure as E[K]);
      }
    }
  }

  clear(): void {
    this.handlers = {};
  }
}
