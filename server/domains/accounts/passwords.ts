/**
 * Password rules and hashing of the dashboard's accounts (README "The dashboard"):
 * at least 10 characters, not one of the most common passwords, not the email;
 * stored as Argon2id through `Bun.password`.
 */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 256;

/** The most common passwords of at least the minimum length, as breach lists rank them. */
const COMMON = new Set([
  "1234567890",
  "0123456789",
  "12345678910",
  "123456789a",
  "qwertyuiop",
  "1q2w3e4r5t",
  "1qaz2wsx3edc",
  "password1234",
  "password123",
  "password12",
  "passw0rd123",
  "iloveyou12",
  "qwerty1234",
  "qwerty12345",
  "qwerty123456",
  "abcdefghij",
  "abc1234567",
  "1111111111",
  "0000000000",
  "9876543210",
  "letmein123",
  "welcome123",
  "administrator",
  "changeme123",
  "football123",
  "baseball123",
  "sunshine123",
  "princess123",
  "superman123",
  "trustno1234",
  "frameline123",
]);

/** What is wrong with `password` for `email`, in sentences; empty when it may be used. */
export function passwordProblems(password: string, email: string): string[] {
  if (password.length < MIN_PASSWORD_LENGTH) return [`The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`];
  if (password.length > MAX_PASSWORD_LENGTH) return [`The password must be at most ${MAX_PASSWORD_LENGTH} characters long.`];
  const lower = password.toLowerCase();
  if (COMMON.has(lower)) return ["This password is one of the most common ones: choose another."];
  if (/^(.)\1+$/.test(password)) return ["The password must not be one character repeated."];
  if (lower === email.toLowerCase() || lower === email.toLowerCase().split("@")[0]) return ["The password must not be your email."];
  return [];
}

export const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: "argon2id" });

/** A hash of no password, verified when the account is unknown so the answer takes as long either way. */
let decoy: Promise<string> | undefined;
export async function verifyPassword(password: string, hash: string | undefined): Promise<boolean> {
  if (hash === undefined) {
    decoy ??= hashPassword("no account has this password");
    await Bun.password.verify(password, await decoy);
    return false;
  }
  return Bun.password.verify(password, hash);
}
