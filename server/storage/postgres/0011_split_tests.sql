-- Split tests (beyond the core interface): one video against others, each viewer's device served
-- one variation by weight (server/api/split-tests). The first variation
-- (position 0) is the control: its own embed serves the test while the test is not
-- ended.
CREATE TABLE split_tests (
  id                           bigserial PRIMARY KEY,
  workspace_id                 bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  code                         uuid NOT NULL UNIQUE,                 -- public: the embed and the events host name the test by it
  name                         varchar(255) NOT NULL,
  goal                         varchar(16) NOT NULL CHECK (goal IN ('conversion', 'play', 'cta_click')),
  status                       varchar(16) NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'paused', 'ended')),
  auto_promote                 boolean NOT NULL DEFAULT false,
  control_video_id             bigint,                               -- the control's video, for the publish lookup
  -- Declared once by the winner rule (split_test.winner_declared); with auto_promote
  -- the declared winner is then served to everyone.
  declared_variation_id        bigint,
  declared_at                  timestamptz,
  -- Chosen by the seller when ending the test; served to everyone afterwards.
  winner_variation_id          bigint,
  ended_at                     timestamptz,
  created_at                   timestamptz NOT NULL DEFAULT now(),
  updated_at                   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX split_tests_workspace ON split_tests (workspace_id, id);
-- The publish path asks "is this video the control of a test that is not ended?".
CREATE INDEX split_tests_live_control ON split_tests (control_video_id) WHERE status <> 'ended';

CREATE TABLE split_test_variations (
  id            bigserial PRIMARY KEY,
  split_test_id bigint NOT NULL REFERENCES split_tests(id) ON DELETE CASCADE,
  workspace_id  bigint NOT NULL,
  -- A deleted video leaves its variation (and its history) in place; it is then served the control.
  video_id      bigint REFERENCES videos(id) ON DELETE SET NULL,
  position      smallint NOT NULL,
  weight        smallint NOT NULL CHECK (weight BETWEEN 1 AND 99),
  UNIQUE (split_test_id, position)
);
CREATE INDEX split_test_variations_video ON split_test_variations (video_id);

-- The variation a player session was served while its test was running: every
-- player event, custom event and sale traced to the session carries it.
ALTER TABLE viewer_sessions
  ADD COLUMN split_test_id           bigint,
  ADD COLUMN split_test_variation_id bigint,
  ADD COLUMN split_test_video_id     bigint;

-- The raw-count decisions of 0007 were about tests without traffic figures; the
-- decision now lives on the test (declared_variation_id). Sales keep their ids.
DROP TABLE IF EXISTS split_test_winners;
