-- The HLS playlists of videos encoded before the authoring rules of
-- server/domains/encoding/hls-authoring.ts (measured BANDWIDTH, CODECS, FRAME-RATE,
-- TARGETDURATION) are rewritten once, without re-encoding, by a job on the job runner
-- (docs/architecture.md "Jobs"): a row claimed with FOR UPDATE SKIP LOCKED and leased
-- to one worker. `after_video` is the last video it finished, so a job taken over
-- after its worker died goes on from there; a media row written since carries
-- `playlists` and is passed over.
CREATE TABLE playlist_rewrites (
  id            bigserial PRIMARY KEY,
  version       integer NOT NULL UNIQUE,          -- the authoring it brings playlists to
  state         varchar(16) NOT NULL DEFAULT 'queued', -- queued | running | done | failed
  attempts      integer NOT NULL DEFAULT 0,
  locked_by     varchar(64),
  locked_until  timestamptz,
  after_video   bigint NOT NULL DEFAULT 0,
  rewritten     integer NOT NULL DEFAULT 0,
  skipped       integer NOT NULL DEFAULT 0,
  error         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
INSERT INTO playlist_rewrites (version) VALUES (2);
