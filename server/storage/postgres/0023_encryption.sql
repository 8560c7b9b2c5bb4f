-- Encrypted streams (README "Playback protection"): a video may ask for its HLS
-- segments to be encrypted with AES-128 under a key of its own. The key lives here and
-- nowhere in the media store; the media host answers it only to a request its
-- protection allows. An encryption job (leased like encode jobs, on the job runner)
-- encrypts a ready video's segments without re-encoding; a new encode of a video that
-- asks for it encrypts before anything is stored. At most one pending job per video.
ALTER TABLE videos ADD COLUMN IF NOT EXISTS encryption varchar(16) NOT NULL DEFAULT 'none'; -- none | aes-128

CREATE TABLE IF NOT EXISTS video_keys (
  video_id   bigint PRIMARY KEY REFERENCES videos(id) ON DELETE CASCADE,
  key        bytea NOT NULL, -- 16 bytes
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS encryption_jobs (
  id            bigserial PRIMARY KEY,
  video_id      bigint NOT NULL REFERENCES videos(id) ON DELETE CASCADE,
  state         varchar(16) NOT NULL DEFAULT 'queued', -- queued | running | done | failed
  attempts      integer NOT NULL DEFAULT 0,
  locked_by     varchar(64),
  locked_until  timestamptz,
  error         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS encryption_jobs_pending ON encryption_jobs (video_id) WHERE state IN ('queued', 'running');
