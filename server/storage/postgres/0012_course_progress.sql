-- Courses and resume on any device (the player's course, quiz and
-- cross-device resume features).
--
-- course_progress: what a viewer completed, one row per viewer, course (the
-- playlist's container video) and lesson (the item's video code), or the course
-- itself finished (kind 'playlist', lesson_code ''). The row is also the
-- once-per-viewer mark of the `lesson.completed` / `playlist.ended` webhooks.
CREATE TABLE course_progress (
  workspace_id    bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  viewer_id       bigint NOT NULL REFERENCES viewers(id) ON DELETE CASCADE,
  course_video_id bigint NOT NULL REFERENCES videos(id) ON DELETE CASCADE,
  kind            text NOT NULL CHECK (kind IN ('lesson', 'playlist')),
  lesson_code     text NOT NULL,
  completed_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, viewer_id, course_video_id, kind, lesson_code)
);

-- resume_positions: the last position of an identified viewer in a video, so
-- the player on another device can offer to continue there.
CREATE TABLE resume_positions (
  workspace_id bigint NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  viewer_id    bigint NOT NULL REFERENCES viewers(id) ON DELETE CASCADE,
  video_id     bigint NOT NULL REFERENCES videos(id) ON DELETE CASCADE,
  position_s   double precision NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, viewer_id, video_id)
);
