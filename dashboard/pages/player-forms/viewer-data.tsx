import { groupForm } from "./kit.tsx";

/** continue_watching_options: a returning viewer is offered the position where they stopped. */
export const continueWatchingForm = groupForm("continue_watching_options", "Continue watching", (f) => (
  <>
    {f.check("enabled", "Offer a returning viewer to continue where they stopped")}
    <div class="row item">
      {f.text("prompt_text", "Prompt")}
      {f.num("min_seconds", "Only after (s) watched")}
    </div>
  </>
));

/** analytics_options and engagement_options: whether the player reports viewing, and how often it sends progress. */
export const analyticsForm = groupForm("analytics_options", "Analytics", (f) =>
  f.check("enabled", "Send what viewers watch to this workspace's analytics (off: the player sends no viewing events)"),
);

export const engagementForm = groupForm("engagement_options", "Progress reports", (f) =>
  f.num("heartbeat_s", "Send watch progress every (s)", { min: 1, step: "1" }),
);
