/** Lists of docs/api.md that tests hold the service to, copied from the spec's own sentences (never from the code). */

/** docs/api.md "Events": "Webhook event kinds accepted in `events[]` (exact complete list)". */
export const SPEC_EVENTS = (
  "video.created, video.uploaded, video.settings.deployed, video.deleted, video.viewed, conversion, conversion.created, play, " +
  "play.milestone, cta.clicked, ended, lead.captured, lesson.completed, playlist.ended, lead_form.submitted, quiz.answered, split_test.winner_declared"
).split(", ");
