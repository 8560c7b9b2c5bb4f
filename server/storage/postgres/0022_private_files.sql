-- Uploaded sources and export files move out of the media store (`media/` in the
-- bucket, beside the public renditions) into the private store (`private/`), which no
-- public URL serves (server/storage/media-keys.ts). Objects cannot move in SQL, so this
-- queues one job for the private mover on the job runner (server/workers/private-mover.ts),
-- leased like 0017's playlist rewrites: it copies each object, points every row naming
-- the old key at the new one, then deletes the old object. Each step can be repeated,
-- so a job taken over after its worker died, or run again, finds its way. Until a row
-- is moved its old key is read where it is (storage/media-keys.ts `privateBlob`).
CREATE TABLE private_moves (
  id            bigserial PRIMARY KEY,
  version       integer NOT NULL UNIQUE,
  state         varchar(16) NOT NULL DEFAULT 'queued', -- queued | running | done | failed
  attempts      integer NOT NULL DEFAULT 0,
  locked_by     varchar(64),
  locked_until  timestamptz,
  moved         integer NOT NULL DEFAULT 0,
  error         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
INSERT INTO private_moves (version) VALUES (1);
