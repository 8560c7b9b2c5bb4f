-- A slot row's yes/no facts in one column, so a read merges one value per session instead
-- of five: bit 0 `loaded`, 1 `played`, 2 `autoplayed`, 3 `unmuted`, 4 `lead`
-- (server/api/analytics/metrics.ts SESSION_FLAGS says the same). Merging rows ORs
-- them, as max() merges each of the five. The five columns stay for the reads that use
-- them. The views do not list `flags`: the DEFAULT fills it from the row being written,
-- and parts written before compute it when read until the mutation below has rewritten them.
ALTER TABLE analytics_session_slots
  ADD COLUMN IF NOT EXISTS flags SimpleAggregateFunction(groupBitOr, UInt8) DEFAULT toUInt8(loaded + 2 * played + 4 * autoplayed + 8 * unmuted + 16 * lead);

ALTER TABLE analytics_session_slots MATERIALIZE COLUMN flags;
