-- Keys, not URLs, at rest (README "Running on several machines"): a video's master
-- playlist and poster columns hold media-store keys (`videos/<code>/<orientation>/<job>/...`);
-- the URL is built when answering, from PUBLIC_URL or S3_PUBLIC_URL as they are then.
-- URLs written before hold `.../media/<key>` whichever origin built them; one that does
-- not is kept as it is (and answered as it is).
UPDATE videos SET
  landscape_hls   = COALESCE(substring(landscape_hls   from '^[a-z]+://.*/media/(videos/.+)$'), landscape_hls),
  portrait_hls    = COALESCE(substring(portrait_hls    from '^[a-z]+://.*/media/(videos/.+)$'), portrait_hls),
  landscape_thumb = COALESCE(substring(landscape_thumb from '^[a-z]+://.*/media/(videos/.+)$'), landscape_thumb),
  portrait_thumb  = COALESCE(substring(portrait_thumb  from '^[a-z]+://.*/media/(videos/.+)$'), portrait_thumb)
WHERE landscape_hls LIKE '%://%' OR portrait_hls LIKE '%://%' OR landscape_thumb LIKE '%://%' OR portrait_thumb LIKE '%://%';
