/** First-start chores: the operator key and the `Default` workspace with a token. */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { Config } from "./config.ts";
import type { Deps } from "./deps.ts";
import { ALL_SCOPES } from "../contract/scopes.ts";
import { createToken, createWorkspace, listWorkspaces } from "./domains/workspaces/service.ts";
import { addMember, countUsers, createUser } from "./domains/accounts/service.ts";

export interface AdminKey {
  key: string;
  /** Where the key lives, or null when it came from ADMIN_KEY. */
  path: string | null;
  generated: boolean;
}

export async function resolveAdminKey(config: Config): Promise<AdminKey> {
  if (config.adminKey) return { key: config.adminKey, path: null, generated: false };
  const path = join(config.dataDir, "admin.key");
  const existing = await readFile(path, "utf8").catch(() => undefined);
  if (existing?.trim()) return { key: existing.trim(), path, generated: false };
  await mkdir(config.dataDir, { recursive: true });
  const key = "fla_" + randomBytes(32).toString("base64url");
  // `wx`: if another process won the race, read its key instead of overwriting it.
  try {
    await writeFile(path, key + "\n", { flag: "wx", mode: 0o600 });
  } catch {
    return { key: (await readFile(path, "utf8")).trim(), path, generated: false };
  }
  await chmod(path, 0o600);
  return { key, path, generated: true };
}

const BOOTSTRAP_LOCK = 7_240_318_002;

/** Creates `Default` and an all-scopes token when the database has no workspace yet. */
export async function ensureDefaultWorkspace(deps: Deps): Promise<{ workspaceId: number; token: string; legacyKey: string } | undefined> {
  return deps.sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`;
    const [any] = await tx`SELECT id FROM workspaces LIMIT 1`;
    if (any) return undefined;
    const { workspace, legacyKey } = await createWorkspace(tx, "Default");
    const { secret } = await createToken({ sql: tx, clock: deps.clock }, workspace.id, { name: "Default token", scopes: [...ALL_SCOPES] });
    return { workspaceId: workspace.id, token: secret, legacyKey };
  });
}

/**
 * Creates the first owner (OWNER_EMAIL, a generated password) when there is no
 * account yet, owner of every workspace there is: on a new install the `Default`
 * one, on an upgrade every workspace the admin key reached. Answers the password
 * to print once; safe to run from two processes at once.
 */
export async function ensureFirstOwner(deps: Deps): Promise<{ email: string; password: string } | undefined> {
  return deps.sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`;
    if ((await countUsers(tx)) > 0) return undefined;
    const password = randomBytes(15).toString("base64url");
    const [first, ...rest] = await listWorkspaces(tx);
    const user = await createUser(tx, { email: deps.config.ownerEmail, password, workspaceId: first?.id, role: "owner" }, null);
    for (const workspace of rest) await addMember(tx, workspace.id, user.id, "owner");
    return { email: user.email, password };
  });
}
