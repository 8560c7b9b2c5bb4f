/** How the dashboard writes the seller metrics (README "What the numbers mean"). */

import type { GroupMetrics } from "../server/modules/analytics/definitions.ts";

/** The seller metrics of one video or breakdown value, as the API sends them. */
export type SellerMetrics = GroupMetrics;

export const DIMENSIONS = [
  { v: "source", l: "Source" },
  { v: "utm_source", l: "utm_source" },
  { v: "utm_medium", l: "utm_medium" },
  { v: "utm_campaign", l: "utm_campaign" },
  { v: "referrer_host", l: "Referrer" },
  { v: "device", l: "Device" },
  { v: "browser", l: "Browser" },
  { v: "os", l: "Operating system" },
  { v: "country", l: "Country" },
];

/** A rate 0..1 as a percentage; "—" when it has no denominator (null). */
export const pct = (rate: number | null, digits = 1) => (rate === null ? "—" : `${(rate * 100).toFixed(digits)} %`);

export const num = (n: number | null) => (n === null ? "—" : n.toLocaleString(undefined, { maximumFractionDigits: 2 }));

export function money(n: number | null, currency: string | null): string {
  if (n === null) return "—";
  if (!currency) return n.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  try {
    return n.toLocaleString(undefined, { style: "currency", currency });
  } catch {
    return `${n.toFixed(2)} ${currency}`;
  }
}

export const seconds = (s: number | null) => (s === null ? "—" : `${Math.round(s * 10) / 10} s`);
