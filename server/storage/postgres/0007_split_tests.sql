-- A split test is decided once: the row is the decision, its insert fires the event.
CREATE TABLE split_test_winners (
  workspace_id         bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  split_test_id        varchar(190) NOT NULL,
  winner_variation_id  varchar(190) NOT NULL,
  decided_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, split_test_id)
);
