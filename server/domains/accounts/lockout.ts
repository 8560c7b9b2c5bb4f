/**
 * The sign-in back-off (README "The dashboard"): counted per client address and
 * account, so guessing from one address never locks the account for anyone else;
 * from the fifth failure on, each failure doubles the wait, capped at 15 minutes,
 * so no one is locked out for good.
 */
export const FREE_FAILURES = 4;
export const FIRST_LOCK_MS = 30_000;
export const MAX_LOCK_MS = 15 * 60_000;

/** How long to refuse sign-ins after the `failures`-th failure in a row. */
export function lockFor(failures: number): number {
  if (failures <= FREE_FAILURES) return 0;
  return Math.min(MAX_LOCK_MS, FIRST_LOCK_MS * 2 ** (failures - FREE_FAILURES - 1));
}

/** The key of the back-off of `email` from `ip`. */
export const lockoutKey = (ip: string, email: string) => `${ip.slice(0, 64)}|${email.toLowerCase()}`;
