/** The rules of docs/api.md "Automation-platform REST hooks"; knows nothing of HTTP. */
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import { findWorkspace } from "../../domains/workspaces/service.ts";
import type { Envelope } from "../webhooks/model.ts";
import * as webhooks from "../webhooks/service.ts";
import { findTrigger, PLATFORMS, TRIGGERS, type Platform, type Trigger } from "./catalogue.ts";

export async function me(deps: Deps, workspaceId: number) {
  const row = await findWorkspace(deps.sql, workspaceId);
  if (!row) throw Errors.unknownWorkspace();
  return { workspace_id: row.id, workspace_name: row.name, workspace_code: row.code };
}

export function triggers() {
  return { triggers: TRIGGERS.map(({ key, event, label, description }) => ({ key, event, label, description })) };
}

/** An array of one delivery in the live envelope (what the platform shows while a user maps fields). */
export function sample(deps: Deps, workspaceId: number, key: string): Envelope[] {
  const trigger = findTrigger(key);
  if (!trigger) throw Errors.unknownTrigger();
  return [
    {
      id: crypto.randomUUID(),
      event: trigger.event,
      workspace_id: workspaceId,
      created_at: new Date(deps.clock.now()).toISOString(),
      data: structuredClone(trigger.sample),
    },
  ];
}

/** Subscribe by trigger key only: a normal subscription named `<Platform>: <label>` with its own unreadable secret. */
export async function subscribe(deps: Deps, workspaceId: number, platform: Platform, input: { target_url: string; event: string }) {
  const trigger: Trigger | undefined = findTrigger(input.event);
  if (!trigger) throw Errors.unknownTrigger();
  const row = await webhooks.createSubscription(
    deps,
    workspaceId,
    { name: `${PLATFORMS[platform]}: ${trigger.label}`, url: input.target_url, events: [trigger.event] },
    { source: platform, urlField: "target_url" },
  );
  return { id: row.id, event: trigger.event };
}

/** 200 `{deleted: true}` whatever the id: an unknown or foreign id deletes nothing. */
export async function unsubscribe(deps: Deps, workspaceId: number, id: number | undefined) {
  if (id !== undefined) await webhooks.deleteSubscription(deps, workspaceId, id);
  return { deleted: true as const };
}
