/**
 * Embedded PGlite serves every connection from one single-session engine;
 * under bursts of concurrent statements from several connections it has been
 * seen to mix them up ("portal does not exist", a valid token read as absent).
 * In embedded mode (one process by construction) this module's Postgres calls
 * therefore run one at a time; against a PostgreSQL server they run freely.
 * Only leaf calls (one repo function) go through the gate, never nested ones.
 */
import type { Deps } from "../../deps.ts";

const tails = new WeakMap<object, Promise<unknown>>();

export function gated<T>(deps: Pick<Deps, "sql" | "embedded">, fn: () => Promise<T>): Promise<T> {
  if (!deps.embedded) return fn();
  const previous = tails.get(deps.sql) ?? Promise.resolve();
  const next = previous.then(fn, fn);
  tails.set(
    deps.sql,
    next.catch(() => {}),
  );
  return next;
}
