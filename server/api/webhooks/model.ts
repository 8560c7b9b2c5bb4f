/** Wire schemas of docs/api.md "Webhook subscriptions" and "Events". */
import { t } from "elysia";
import { Text } from "../../http/schemas.ts";

/** docs/api.md "Events": the exact, complete list accepted in `events[]`. */
export const SUPPORTED_EVENTS = [
  "video.created",
  "video.uploaded",
  "video.settings.deployed",
  "video.deleted",
  "video.viewed",
  "conversion",
  "conversion.created",
  "play",
  "play.milestone",
  "cta.clicked",
  "ended",
  "lead.captured",
  "lesson.completed",
  "playlist.ended",
  "lead_form.submitted",
  "quiz.answered",
  "split_test.winner_declared",
] as const;
export type SupportedEvent = (typeof SUPPORTED_EVENTS)[number];

/** The event of a test delivery; not subscribable. */
export const TEST_EVENT = "webhook.test";

export function isSupportedEvent(value: string): value is SupportedEvent {
  return (SUPPORTED_EVENTS as readonly string[]).includes(value);
}

export const CreateWebhookBody = t.Object({
  name: Text({ minLength: 1, maxLength: 128, error: "The name must be a string of 1 to 128 characters." }),
  url: Text({ minLength: 1, maxLength: 2048, error: "The url must be a URL of at most 2048 characters." }),
  events: t.Array(Text({ maxLength: 64 }), { minItems: 1, maxItems: 100, error: "The events must be a list of at least one supported event." }),
  secret: t.Optional(Text({ minLength: 16, maxLength: 128, error: "The secret must be a string of 16 to 128 characters." })),
});
export type CreateWebhookBody = typeof CreateWebhookBody.static;

export const Subscription = t.Object({
  id: t.Integer(),
  workspace_id: t.Integer(),
  name: t.String(),
  url: t.String(),
  events: t.Array(t.String()),
  is_active: t.Boolean(),
  failure_count: t.Integer(),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

/** The body every delivery carries (live, test and automation sample alike). */
export interface Envelope {
  id: string;
  event: string;
  workspace_id: number;
  created_at: string;
  data: Record<string, unknown>;
}

export const EnvelopeSchema = t.Object({
  id: t.String(),
  event: t.String(),
  workspace_id: t.Integer(),
  created_at: t.String({ format: "date-time" }),
  data: t.Record(t.String(), t.Unknown()),
});
