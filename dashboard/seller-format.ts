/** How the dashboard writes the seller metrics (README "What the numbers mean"). */

import type { GroupMetrics } from "../contract/analytics.ts";

/** The seller metrics of one video or breakdown value, as the API sends them. */
export type SellerMetrics = GroupMetrics;

/** What a breakdown groups by (GET /analytics/breakdown `by`), labelled; utm_* keep their names. */
const DIMENSION_LABELS: Record<string, string> = {
  source: "Source",
  referrer_host: "Referrer",
  device: "Device",
  browser: "Browser",
  os: "Operating system",
  country: "Country",
};
export const DIMENSIONS = ["source", "utm_source", "utm_medium", "utm_campaign", "referrer_host", "device", "browser", "os", "country"].map((v) => ({
  v,
  l: DIMENSION_LABELS[v] ?? v,
}));

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

/** Under the analytics: how fresh the figures are and which are estimates. */
export const FRESHNESS =
  "Figures include the last event stored. Every figure is exact except the startup times of large groups (within 1 %); hours over by more than an hour are read from sealed rollups, sealed again within a minute when late events arrive.";
