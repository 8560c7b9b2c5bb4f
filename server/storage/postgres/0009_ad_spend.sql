-- Ad spend a seller enters per video, day and traffic source, so the analytics can
-- show ROAS (revenue / spend in the same currency). One row per (video, date, source):
-- entering the same day and source again replaces it.
CREATE TABLE ad_spend (
  id           bigserial PRIMARY KEY,
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  video_id     bigint NOT NULL REFERENCES videos(id) ON DELETE CASCADE,
  spend_date   date NOT NULL,
  source       varchar(100) NOT NULL,                     -- lowercase, e.g. facebook; matches the breakdown's `source`
  currency     char(3) NOT NULL,
  amount       numeric(14, 2) NOT NULL CHECK (amount >= 0),
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, video_id, spend_date, source)
);

-- Exports of the seller overview and of a breakdown (by what: `breakdown_by`).
ALTER TABLE exports DROP CONSTRAINT IF EXISTS exports_type_check;
ALTER TABLE exports ADD CONSTRAINT exports_type_check CHECK (type IN ('events', 'summary', 'retention', 'conversions', 'overview', 'breakdown'));
ALTER TABLE exports ADD COLUMN breakdown_by varchar(32);
