/**
 * The `code` of a thrown value, when it has a string one. Errors reach us from
 * postgres.js, Bun's sockets, the DNS resolver and user code; a `code` may be
 * missing, a number (an HTTP-ish status) or anything at all, so nothing reads
 * it without this check.
 */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === "string" ? code : undefined;
}
