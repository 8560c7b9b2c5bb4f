/**
 * The seller metrics as the API sends them (README "What the numbers mean"):
 * the overview, each breakdown row and the workspace overview carry these.
 */

/** One currency's sales. */
export interface CurrencyMetrics {
  currency: string | null;
  orders: number;
  revenue: number;
  aov: number | null;
  rpv: number | null;
  epc: number | null;
  ad_spend: number | null;
  roas: number | null;
}

export interface GroupMetrics {
  impressions: number;
  plays: number;
  play_rate: number | null;
  autoplays: number;
  unmutes: number;
  unmute_rate: number | null;
  unique_viewers: number;
  /** Always true: distinct viewers are counted exactly (kept for clients that read it). */
  unique_viewers_exact: boolean;
  avg_watch_time_s: number | null;
  avg_percent_watched: number | null;
  cta_clicks: { card_index: number; sessions: number }[];
  leads: number;
  orders: number;
  conversion_rate: number | null;
  revenue: CurrencyMetrics[];
  startup_time_ms: { p50: number | null; p95: number | null };
  rebuffer_ratio: number | null;
  errors: number;
}
