/**
 * `If-None-Match` (RFC 9110 13.1.2): a list of entity tags, or `*`, compared
 * weakly (a `W/` prefix on either side is ignored). Media, the player CDN and
 * the analytics summary answer 304 with it.
 */
export function etagMatches(ifNoneMatch: string | null, etag: string | undefined): boolean {
  if (!ifNoneMatch || !etag) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || bare(tag) === bare(etag));
}
