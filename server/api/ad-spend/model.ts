/** Wire schemas of the ad spend a seller enters per video (beyond the core interface). */
import { t } from "elysia";
import { DATE_MAX, DATE_MIN, DateOnly, Num, PathId, Text } from "../../http/schemas.ts";

export const AdSpendBody = t.Object(
  {
    date: DateOnly({
      description: `The day the money was spent, YYYY-MM-DD (${DATE_MIN} to ${DATE_MAX}).`,
      error: `The date must be a date in YYYY-MM-DD format from ${DATE_MIN} to ${DATE_MAX}.`,
    }),
    amount: Num(0, 1_000_000_000_000, {
      description: "Spent that day, in `currency`; at most 2 decimals kept.",
      error: "The amount must be a number from 0 to 1000000000000.",
    }),
    currency: Text({ maxLength: 3, pattern: "^[A-Za-z]{3}$", description: "ISO 4217 code, e.g. USD.", error: "The currency must be a 3-letter code." }),
    source: Text({
      minLength: 1,
      maxLength: 100,
      description: "Where the money went (e.g. facebook); stored lowercase. ROAS of the breakdown by `source` matches it.",
      error: "The source must be a string of 1 to 100 characters.",
    }),
  },
  { additionalProperties: false },
);
export type AdSpendBody = typeof AdSpendBody.static;

export const AdSpend = t.Object({
  id: t.Integer(),
  video_id: t.Integer(),
  date: t.String({ format: "date" }),
  source: t.String(),
  currency: t.String(),
  amount: t.Number(),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});
export type AdSpend = typeof AdSpend.static;

export const AdSpendParams = t.Object({ video: PathId("Numeric video id") });
export const AdSpendItemParams = t.Object({ video: PathId("Numeric video id"), id: PathId("The ad spend row's id") });
// Dates are checked by analytics' resolveWindow, so that its 422 names the parameter and says why.
export const AdSpendQuery = t.Object({
  from: t.Optional(Text({ maxLength: 64, description: `ISO date (${DATE_MIN} to ${DATE_MAX}); default 30 days ago.` })),
  to: t.Optional(Text({ maxLength: 64, description: `ISO date (${DATE_MIN} to ${DATE_MAX}); default today (UTC).` })),
});
