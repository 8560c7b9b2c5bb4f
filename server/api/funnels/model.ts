/** Wire schemas of the funnel report (docs/api.md "Funnels"). */
import { t } from "elysia";

const VideoRef = t.Object({ id: t.Integer(), code: t.String(), title: t.String() });

const Money = t.Object({
  currency: t.Nullable(t.String({ description: "ISO 4217; null for sales sent without a currency." })),
  amount: t.Number({ description: "Sum of the verified, non-test sales of this step's video by this step's sessions, in this currency." }),
});

export const FunnelStep = t.Object({
  id: t.Integer({ description: "The step's place in `steps` (depth first: each step is followed by the steps taken from it)." }),
  parent_id: t.Nullable(t.Integer({ description: "The step this one was taken from; null for the entry video." })),
  depth: t.Integer({ description: "Choices taken to get here: 0 for the entry video." }),
  choice: t.Nullable(
    t.Object({
      key: t.String({ description: "`quiz:<question_id>:<choice_id>` or `cta:<card_index>`." }),
      label: t.String({ description: "The choice's text or the card's button as the video's live settings say; the key when they no longer do." }),
    }),
  ),
  video: VideoRef,
  sessions: t.Integer({ description: "Sessions that reached this video by this path." }),
  viewers: t.Integer({ description: "Distinct viewers (devices) among them." }),
  plays: t.Integer({ description: "Of those sessions, the ones that played this video." }),
  completions: t.Integer({ description: "The ones that watched it to its end." }),
  leads: t.Integer({ description: "The ones that answered its lead form." }),
  revenue: t.Array(Money),
});
export type FunnelStep = typeof FunnelStep.static;

export const FunnelReport = t.Object({
  entry_video: VideoRef,
  from: t.String({ description: "First day of the window (YYYY-MM-DD)." }),
  to: t.String({ description: "Last day of the window (YYYY-MM-DD)." }),
  tz: t.String(),
  steps: t.Array(FunnelStep),
});
export type FunnelReport = typeof FunnelReport.static;
