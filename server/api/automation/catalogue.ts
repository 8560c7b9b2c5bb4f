/**
 * docs/api.md "Automation-platform REST hooks": the trigger catalogue (exactly the
 * spec's six) and one sample delivery per trigger in the live envelope.
 * `new_lead` carries the spec's shape; the others show the payloads the
 * emitting parts write to the outbox (keep them in step with those writers).
 */
export const PLATFORMS = { zapier: "Zapier", make: "Make", n8n: "n8n" } as const;
export type Platform = keyof typeof PLATFORMS;

export interface Trigger {
  key: string;
  event: string;
  label: string;
  description: string;
  sample: Record<string, unknown>;
}

const VIDEO_CODE = "6f1c2a8e-3b7d-4c1e-9a2f-5d8b0e4c7a91";
const VIDEO = { id: 1042, code: VIDEO_CODE };
const SESSION = "s_8f2d4c6a1b3e5f70";
/** What the collect path writes for every player event (server/hosts/events/collect.ts). */
const PLAYER = { video: VIDEO, session_id: SESSION, device_id: "d_51c0a9e2" };

export const TRIGGERS: readonly Trigger[] = [
  {
    key: "new_lead",
    event: "lead.captured",
    label: "New Lead",
    description: "A viewer left their email in a video's lead capture form.",
    sample: {
      video_code: VIDEO_CODE,
      identity: { email: "jane@example.com", first_name: "Jane" },
      url: "https://example.com/webinar",
      captured_at: "2026-01-15T10:30:00.000Z",
    },
  },
  {
    key: "new_conversion",
    event: "conversion.created",
    label: "New Conversion",
    description: "A sale was recorded and credited to a video.",
    sample: {
      conversion: {
        id: 501,
        conversion_id: "order_1001",
        integration: "stripe",
        video: VIDEO,
        session_code: SESSION,
        value: 49.0,
        currency: "USD",
        product_code: "course",
        product_name: "The Course",
        customer: { email: "jane@example.com", name: "Jane Doe", phone: null },
        data: {},
        is_test: false,
        split_test_id: null,
        split_test_variation_id: null,
        occurred_at: "2026-01-15T10:42:00.000Z",
        verified: true,
      },
    },
  },
  {
    key: "play_milestone",
    event: "play.milestone",
    label: "Play Milestone Reached",
    description: "A viewer reached 25, 50, 75 or 100 percent of a video.",
    sample: { ...PLAYER, video_time: 151.2, percent: 50 },
  },
  {
    key: "split_test_winner",
    event: "split_test.winner_declared",
    label: "Split Test Winner Declared",
    description: "A split test between videos was decided.",
    // The payload of server/api/split-tests/report.ts `evaluateSplitTest`.
    sample: {
      split_test_id: 42,
      name: "Headline test",
      goal: "conversion",
      winner_variation_id: 85,
      video: VIDEO,
      control_variation_id: 84,
      method: "two-proportion z-test (pooled; Bonferroni across variations)",
      confidence: 0.95,
      variations: [
        { variation_id: 84, video_id: 1041, trials: 612, successes: 37, rate: 0.0605 },
        { variation_id: 85, video_id: 1042, trials: 598, successes: 71, rate: 0.1187 },
      ],
      auto_promoted: false,
      decided_at: "2026-01-20T00:00:00.000Z",
    },
  },
  {
    key: "cta_clicked",
    event: "cta.clicked",
    label: "CTA Clicked",
    description: "A viewer clicked a call-to-action in the player.",
    sample: { ...PLAYER, video_time: 312.5, properties: { label: "Buy now", url: "https://example.com/checkout" } },
  },
  {
    key: "video_viewed",
    event: "video.viewed",
    label: "Video Viewed",
    description: "A viewer started watching a video.",
    sample: { ...PLAYER },
  },
];

export function findTrigger(key: string): Trigger | undefined {
  return TRIGGERS.find((trigger) => trigger.key === key);
}
