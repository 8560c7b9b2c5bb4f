/**
 * user_events_options.events are sent from the page as browser custom events,
 * which docs/api.md's browser path accepts only for names declared as custom
 * metrics: a deploy that names an undeclared one would publish events the
 * events host refuses, so it is a 422 beside the field instead.
 */
import { validation } from "../../errors.ts";
import type { TxSql } from "../../storage/postgres.ts";
import { listMetrics } from "../../domains/workspaces/repo.ts";
import { normaliseEventName } from "../../../contract/events.ts";
import type { Settings } from "../../../contract/settings.ts";

export async function assertDeclaredUserEvents(tx: TxSql, workspaceId: number, settings: Settings): Promise<void> {
  const group = settings.user_events_options;
  const events = group.enabled === true ? (group.events ?? []) : [];
  if (events.length === 0) return;
  const declared = new Set((await listMetrics(tx, workspaceId)).map((m) => m.name));
  const errors: Record<string, string[]> = {};
  events.forEach((e, i) => {
    const name = normaliseEventName(e.name);
    if (!declared.has(name))
      errors[`user_events_options.events.${i}.name`] = [
        `The user_events_options.events.${i}.name field must name a custom metric declared in this workspace ("${name}" is not).`,
      ];
  });
  if (Object.keys(errors).length) throw validation(errors);
}
